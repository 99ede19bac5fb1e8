// The proving ground's types: a run's options, its results and their JSON shapes (the `--json` shape of issue 6), the
// degraded scenarios' outcomes. Types only, taken from the modules that make them: every module of the run can import
// them without importing the run (which once made a 15-file import circle around results.ts).
import type { AccountAudit } from "../measure/account-audit.js";
import type { FaultHits, FaultName } from "../faults/faults.js";
import type { ProvingFlow } from "../workload/flows.js";
import type { ContenderMetrics, VerdictOutcome } from "../measure/metrics.js";
import type { OverallProgressUpdate } from "./overall-progress.js";
import type { ScaleInCounts } from "../contender/replica-fleet.js";
import type { RunScale } from "./run-scale.js";
import type { ScenarioFigures } from "../scenarios/scenario-figures.js";
import type { ScenarioName } from "../scenarios/scenarios.js";
import type { HarnessSettings } from "./settings.js";
import type { TelemetrySummary } from "../measure/telemetry-reader.js";
import type { StepTimes } from "../contender/step-timer.js";

export interface ProvingGroundOptions {
  events?: number;
  /**
   * Events for the contenders of the other flows (charge, invoice, meter-event): at most `events`. They run their
   * own workload of this size from the same seed, so the default run keeps them at a fraction of its cost.
   */
  flowEvents?: number;
  replicas?: number;
  seed?: number;
  faults?: readonly FaultName[];
  /** Contender names; absent: all. */
  only?: readonly string[];
  settings?: Partial<HarnessSettings>;
  /** Contenders run at once, each in a worker thread (built JavaScript only; from TypeScript sources: one at a time). */
  parallel?: number;
  onProgress?(update: OverallProgressUpdate): void;
  log?(line: string): void;
}

export type ContenderKind = "example" | "generated";

export interface ContenderResult {
  name: string;
  kind: ContenderKind;
  /** The Stripe flow it bills through (prove/workload/flows.ts). */
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
  /** The faults that hit it, each counted (per event, renew request or message re-sent). */
  faultHits?: FaultHits;
  /** Milliseconds per step of its run (setup, drain, stop, reconcile, judge), for finding where the time goes. */
  timing?: StepTimes;
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
  /** "PASS: ...", "FAIL: ..." or "DID NOT SETTLE: ... (inconclusive)" (a broken example is expected to fail). */
  verdict: string;
  /** The verdict in one word: pass, fail, did-not-settle. */
  outcome: VerdictOutcome;
  /** For examples: the failure its seed describes. */
  expectedFailure?: string;
  malformed: { events: number; deadLettered: number; charged: number };
  events: number;
  /** The flow's Stripe objects: PaymentIntents (charges, invoices or meter events for those flows). */
  paymentIntents: number;
  /** Succeeded charges (paid invoices; meter events counted in the meter's summaries) beyond one per event. */
  duplicateCharges: number;
  lostBillings: number;
  /** Valid events still in flight (queued, or a pending record) when a run that did not settle was given up on. */
  unsettledBillings: number;
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
  /** How often each fault hit it. */
  faultHits?: FaultHits;
  /** Milliseconds per step of its run. */
  timing?: StepTimes;
  wallMs: number;
}

/** A run's verdict: passed (exit 0), failed (exit 1), did not settle (inconclusive, exit 3). */
export type RunOutcome = "passed" | "failed" | "did-not-settle";

export interface ProvingGroundJson {
  seed: number;
  events: number;
  scale: RunScale;
  faults: FaultName[];
  /** The run's verdict: the generated consumer passed (the broken examples are expected to fail). */
  passed: boolean;
  /** passed, failed, or did-not-settle: a generated consumer's run was given up on with billings still in flight. */
  outcome: RunOutcome;
  /** Those billings, summed over the generated consumer's runs. */
  unsettledBillings: number;
  contenders: ContenderJson[];
  /** Present when the run had degraded scenarios. */
  scenarios?: ScenarioJson[];
}

export interface ScenarioOutcome {
  scenario: ScenarioName;
  /** Why it did not run (the database scenarios without PostgreSQL); its contenders are then empty. */
  skipped?: string;
  contenders: ContenderResult[];
}

export interface ScenarioContenderJson {
  name: string;
  kind: "example" | "generated";
  verdict: string;
  outcome: VerdictOutcome;
  /** For the naive contender: what its pattern does in this scenario (deadLettered, lostBillings, survives). */
  expected?: string;
  events: number;
  eventsCharged: number;
  duplicateCharges: number;
  lostBillings: number;
  unsettledBillings: number;
  /** Valid events dead-lettered (a failure in a degraded scenario). */
  validDeadLettered: number;
  deadLettered: Record<string, number>;
  figures?: ScenarioFigures;
  wallMs: number;
}

export interface ScenarioJson {
  scenario: ScenarioName;
  description: string;
  skipped?: string;
  contenders: ScenarioContenderJson[];
}

