// The results of a proving-ground run, and their machine-readable form (the `--json` shape of issue 6).
import type { FaultName } from "./faults.js";
import type { ContenderMetrics } from "./metrics.js";
import type { TelemetrySummary } from "./telemetry-reader.js";

export type ContenderKind = "example" | "generated";

export interface ContenderResult {
  name: string;
  kind: ContenderKind;
  /** For examples: the failure its seed describes, e.g. "duplicate charges". */
  expectedFailure?: string;
  metrics: ContenderMetrics;
  /** What the contender's own OpenTelemetry metrics said (empty for consumers that report none). */
  telemetry?: TelemetrySummary;
  verdict: string;
  /** Set when the harness could not run the contender to the end (the metrics then cover what happened). */
  error?: string;
}

export interface ProvingGroundResult {
  seed: number;
  events: number;
  replicas: number;
  faults: FaultName[];
  contenders: ContenderResult[];
  wallMs: number;
}

export interface ContenderJson {
  name: string;
  kind: ContenderKind;
  events: number;
  paymentIntents: number;
  duplicateCharges: number;
  lostBillings: number;
  overCapCents: number;
  repeatedDeclines: number;
  deadLettered: Record<string, number>;
  /** Ground truth at Stripe: events with a succeeded charge, events with a declined card attempt. */
  eventsCharged: number;
  eventsDeclined: number;
  /** The contender's own metrics, beside the ground truth. */
  telemetry: Pick<TelemetrySummary, "outcomes" | "duplicatesPrevented">;
  wallMs: number;
}

export interface ProvingGroundJson {
  seed: number;
  events: number;
  faults: FaultName[];
  contenders: ContenderJson[];
}

export function toJson(result: ProvingGroundResult): ProvingGroundJson {
  return {
    seed: result.seed,
    events: result.events,
    faults: result.faults,
    contenders: result.contenders.map(({ name, kind, metrics, telemetry }) => ({
      name,
      kind,
      events: metrics.events,
      paymentIntents: metrics.paymentIntents,
      duplicateCharges: metrics.duplicateCharges,
      lostBillings: metrics.lostBillings,
      overCapCents: metrics.overCapCents,
      repeatedDeclines: metrics.repeatedDeclines,
      deadLettered: metrics.deadLettered,
      eventsCharged: metrics.eventsCharged,
      eventsDeclined: metrics.eventsDeclined,
      telemetry: { outcomes: telemetry?.outcomes ?? {}, duplicatesPrevented: telemetry?.duplicatesPrevented ?? {} },
      wallMs: metrics.wallMs,
    })),
  };
}
