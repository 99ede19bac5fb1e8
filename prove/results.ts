// The results of a proving-ground run, and their machine-readable form (the `--json` shape of issue 6).
import type { AccountAudit } from "./account-audit.js";
import type { FaultName } from "./faults.js";
import { runScale, type RunScale } from "./run-scale.js";
import type { ProvingFlow } from "./flows.js";
import type { ContenderMetrics } from "./metrics.js";
import type { TelemetrySummary } from "./telemetry-reader.js";
import type { ScaleInCounts } from "./replica-fleet.js";
import type { ScenarioFigures } from "./scenario-figures.js";
import { scenariosPassed, scenariosToJson, type ScenarioJson } from "./scenario-report.js";
import type { ScenarioOutcome } from "./scenario-run.js";

export type ContenderKind = "example" | "generated";

export interface ContenderResult {
  name: string;
  kind: ContenderKind;
  /** The Stripe flow it bills through (prove/flows.ts). */
  flow: ProvingFlow;
  /** For examples: the failure its seed describes, e.g. "duplicate charges". */
  expectedFailure?: string;
  metrics: ContenderMetrics;
  /** What the contender's own OpenTelemetry metrics said (empty for consumers that report none). */
  telemetry?: TelemetrySummary;
  /** With the `scale-in` fault: replicas that exited within their grace period, and those SIGKILLed at its end. */
  scaleIns?: ScaleInCounts;
  /** `chargeguard audit` of the contender's Stripe account beside the ground truth (not for meter events). */
  accountAudit?: AccountAudit;
  /** A degraded scenario's figures (scenario runs only). */
  scenario?: ScenarioFigures;
  verdict: string;
  /** Set when the harness could not run the contender to the end (the metrics then cover what happened). */
  error?: string;
}

export interface ProvingGroundResult {
  seed: number;
  /** Events of the PaymentIntent contenders' workload. */
  events: number;
  /** Events of the other flows' contenders (charge, invoice, meter-event). */
  flowEvents: number;
  replicas: number;
  faults: FaultName[];
  contenders: ContenderResult[];
  /** The degraded scenarios, when the run had any (`--scenarios`, `--degraded`, `--full`). */
  scenarios?: ScenarioOutcome[];
  wallMs: number;
}

export interface ContenderJson {
  name: string;
  kind: ContenderKind;
  /** The Stripe flow: payment-intent, charge, invoice or meter-event. */
  flow: ProvingFlow;
  /** "PASS: ..." or "FAIL: ..." (a broken example is expected to fail). */
  verdict: string;
  /** For examples: the failure its seed describes. */
  expectedFailure?: string;
  malformed: { events: number; deadLettered: number; charged: number };
  events: number;
  /** The flow's Stripe objects: PaymentIntents (charges, invoices or meter events for those flows). */
  paymentIntents: number;
  /** Succeeded charges (paid invoices; meter events counted in the meter's summaries) beyond one per event. */
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
  /** Present with the `scale-in` fault. */
  scaleIns?: ScaleInCounts;
  /** `chargeguard audit` of the account: duplicates found, the ground truth, whether they agree (not for meter events). */
  accountAudit?: AccountAudit;
  wallMs: number;
}

export interface ProvingGroundJson {
  seed: number;
  events: number;
  scale: RunScale;
  faults: FaultName[];
  /** The run's verdict: the generated consumer passed (the broken examples are expected to fail). */
  passed: boolean;
  contenders: ContenderJson[];
  /** Present when the run had degraded scenarios. */
  scenarios?: ScenarioJson[];
}

/** The run passes when every generated contender run passes; broken examples failing is what they are there to show. */
export function runPassed(result: Pick<ProvingGroundResult, "contenders" | "scenarios">): boolean {
  return result.contenders.every((contender) => contender.kind !== "generated" || contender.verdict.startsWith("PASS")) && scenariosPassed(result.scenarios ?? []);
}

export function toJson(result: ProvingGroundResult): ProvingGroundJson {
  return {
    seed: result.seed,
    events: result.events,
    scale: runScale(result),
    faults: result.faults,
    passed: runPassed(result),
    contenders: result.contenders.map(({ name, kind, flow, metrics, verdict, expectedFailure, scaleIns, telemetry, accountAudit }) => ({
      name,
      kind,
      flow,
      verdict,
      ...(expectedFailure === undefined ? {} : { expectedFailure }),
      malformed: { events: metrics.malformedEvents, deadLettered: metrics.malformedDeadLettered, charged: metrics.malformedCharged },
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
      ...(scaleIns ? { scaleIns } : {}),
      ...(accountAudit ? { accountAudit } : {}),
      wallMs: metrics.wallMs,
    })),
    ...(result.scenarios ? { scenarios: scenariosToJson(result.scenarios) } : {}),
  };
}
