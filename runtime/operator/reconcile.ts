// The reconciler (any flow, the default PaymentIntent consumer's included): a pending record whose lease lapsed is re-run through its flow with
// its stored identity, payload, spend and key, under the guard, so it meets the same recovery points and the same
// rules as a consumer's retry: inside Stripe's 24 h key window the keys replay; past it each flow looks up first
// (PaymentIntents and charges by metadata, invoices and their items by the key in metadata); a meter event past its
// identifier window cannot be proven sent or not and is reported `unverifiable`, never re-sent.
import type { Clock } from "../core/clock.js";
import { stripeKeyWindowMs, type FlowAdapter } from "../flows/flow-adapter.js";
import { builtInFlows, type FlowRegistry } from "../flows/flow-registry.js";
import { configurationReason } from "../flows/stripe-error-class.js";
import { runFlowGuarded } from "../flows/guarded-flow-run.js";
import type { GuardOutcome } from "../guard/guarded-run.js";
import type { Guard, GuardRecord } from "../guard/guard.js";
import type { BillingTelemetry } from "../telemetry/billing-telemetry.js";
import type { ExpectedPeriodTotal, StripeAccess } from "../stripe/stripe-access.js";


export type ReconcileAction = "completed" | "declined" | "unverifiable" | "still-unknown" | "settled-meanwhile" | "refused" | "would-rerun";

export interface ReconcileOutcome {
  scope: string;
  key: Record<string, string | number>;
  flow: string;
  action: ReconcileAction;
  objectId?: string;
  detail?: string;
}

export interface ReconcileReport {
  dryRun: boolean;
  examined: number;
  completed: number;
  declined: number;
  /** Meter events past Stripe's identifier window: compare the meter's summaries and resolve by hand. */
  unverifiable: number;
  stillUnknown: number;
  settledMeanwhile: number;
  /**
   * Stripe refused the replayed request (invalid), or the flow is unknown here: left pending for an operator, but
   * for Stripe's 400 under the record's key inside its window with no step recorded (forgotten: it holds nothing).
   */
  refused: number;
  /**
   * Of the unverifiable and refused, those past Stripe's key window, which no later run can settle (not a refused key
   * or a vault's cap: those bill on a later run): moved out of the way as `unsettleable` (kept, reservation counted) for an operator (`Guard.unsettleable`, `resolveUnsettleable`),
   * so the newer pending records behind them are reached.
   */
  held: number;
  outcomes: ReconcileOutcome[];
}

export interface ReconcileOptions {
  guard: Guard;
  /** The consumer's way to Stripe: each record through its spend period's vault key (see `ReconcileOptions.stripe`). */
  stripe: StripeAccess;
  /** Sizes a period's vault key as the consumer does. */
  expectedPeriodTotalCents?: ExpectedPeriodTotal;
  /**
   * Adapters by flow name; default the built-in four. A consumer's own flows (its edited src/flow.ts) go here, so its
   * records are finished by the code that began them (`chargeguard reconcile --flows <module>`).
   */
  flows?: FlowRegistry;
  /** Only records of this flow. */
  flow?: string;
  clock?: Clock;
  keyWindowMs?: number;
  limit?: number;
  /** Report what would be re-run; call and record nothing. */
  dryRun?: boolean;
  owner?: string;
  /** Counts the records it turns done or declined (and times its guard calls) like the consumer's. */
  telemetry?: BillingTelemetry;
}

const counted: Record<ReconcileAction, keyof ReconcileReport | undefined> = {
  completed: "completed",
  declined: "declined",
  unverifiable: "unverifiable",
  "still-unknown": "stillUnknown",
  "settled-meanwhile": "settledMeanwhile",
  refused: "refused",
  "would-rerun": undefined,
};

function actionOf(outcome: GuardOutcome): { action: ReconcileAction; objectId?: string; detail?: string } {
  switch (outcome.kind) {
    case "done":
      return { action: "completed", objectId: outcome.objectId };
    case "declined":
      return outcome.previously ? { action: "settled-meanwhile" } : { action: "declined", detail: outcome.reason };
    case "already-done":
    case "busy":
      return { action: "settled-meanwhile" };
    case "invalid":
      return outcome.reason === "MeterEventUnverifiable"
        ? { action: "unverifiable", detail: outcome.detail }
        : { action: "refused", detail: `${outcome.reason}: ${outcome.detail}` };
    case "mismatch":
      return { action: "refused", detail: outcome.reason };
    case "cap-exceeded":
      return { action: "refused", detail: outcome.reason };
    case "unknown":
      return { action: "still-unknown", detail: outcome.detail };
  }
}

/**
 * A refusal no later run can change: Stripe refused the request itself. Not a refused key (401/403: the key is fixed,
 * the same billing goes through) nor a vault's cap (its budget is raised or its day starts afresh).
 */
function refusedForGood(outcome: GuardOutcome): boolean {
  return outcome.kind === "mismatch" || (outcome.kind === "invalid" && outcome.reason !== configurationReason);
}

export async function reconcile(options: ReconcileOptions): Promise<ReconcileReport> {
  const { guard } = options;
  const store = options.telemetry ? options.telemetry.instrumentStore(guard) : guard;
  const expected = options.expectedPeriodTotalCents;
  // The consumer's way to Stripe (each record through its (period, currency)'s vault key and cap), in the run the
  // consumer's handler makes (flows/guarded-flow-run.ts).
  const way = {
    store,
    keys: options.stripe.keys,
    stripeFor: (apiKey: string) => options.stripe.stripeFor(apiKey),
    expectedTotalCents: (period: string) => (typeof expected === "function" ? expected(period) : (expected ?? 0)),
    now: () => clock.now(),
    ...(options.keyWindowMs === undefined ? {} : { keyWindowMs: options.keyWindowMs }),
  };
  const clock = options.clock ?? guard.clock;
  const flows = options.flows ?? builtInFlows;
  const dryRun = options.dryRun ?? false;
  const report: ReconcileReport = {
    dryRun, examined: 0, completed: 0, declined: 0, unverifiable: 0, stillUnknown: 0, settledMeanwhile: 0, refused: 0, held: 0, outcomes: [],
  };
  const note = (record: GuardRecord, result: { action: ReconcileAction; objectId?: string; detail?: string }) => {
    report.outcomes.push({ scope: record.scope, key: record.key, flow: record.flow, ...result });
    const field = counted[result.action];
    if (field) (report[field] as number)++;
  };
  const stale = await guard.stalePending({
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    ...(options.flow === undefined ? {} : { flow: options.flow }),
  });
  for (const record of stale) {
    report.examined++;
    const adapter = flows[record.flow] as FlowAdapter<unknown> | undefined;
    if (!adapter) {
      note(record, { action: "refused", detail: `no adapter for flow "${record.flow}" here: pass it in flows` });
      continue;
    }
    if (dryRun) {
      const past = clock.now() - record.createdAt.getTime() >= (options.keyWindowMs ?? stripeKeyWindowMs);
      note(record, { action: "would-rerun", detail: past ? "past the key window: looks up first (a meter event: unverifiable)" : "inside the key window: replays the keys" });
      continue;
    }
    const outcome = await runFlowGuarded(
      adapter,
      {
        scope: record.scope,
        key: record.key,
        payload: record.payload,
        ...(record.spend === null ? {} : { spend: record.spend }),
        flow: record.flow,
        idempotencyKey: record.idempotencyKey,
        owner: options.owner ?? "chargeguard-reconciler",
      },
      way,
    );
    const result = actionOf(outcome);
    note(record, result);
    // Past the key window nothing a later run does can settle it: out of the way, kept, for an operator. (Oldest
    // first, such records kept their place and starved every record behind them.) Only Stripe's verdict on the
    // request holds a record: a refused key (401/403) or a vault's cap is the run's, and the next run bills it.
    const pastWindow = clock.now() - record.createdAt.getTime() >= (options.keyWindowMs ?? stripeKeyWindowMs);
    const verdict = result.action === "unverifiable" || (result.action === "refused" && pastWindow && refusedForGood(outcome));
    if (verdict && (await guard.holdUnsettleable(record.scope, record.key, result.detail ?? result.action))) {
      report.held++;
    }
  }
  return report;
}
