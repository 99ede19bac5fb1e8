// The reconciler (any flow, the default PaymentIntent consumer's included): a pending record whose lease lapsed is re-run through its flow with
// its stored identity, payload, spend and key, under the guard, so it meets the same recovery points and the same
// rules as a consumer's retry: inside Stripe's 24 h key window the keys replay; past it each flow looks up first
// (PaymentIntents and charges by metadata, invoices and their items by the key in metadata); a meter event past its
// identifier window cannot be proven sent or not and is reported `unverifiable`, never re-sent.
import type Stripe from "stripe";
import type { Clock } from "../core/clock.js";
import { describeError } from "../core/describe-error.js";
import { chargeFlow } from "../flows/charge-flow.js";
import { flowContext, stripeKeyWindowMs, type FlowAdapter } from "../flows/flow-adapter.js";
import { invoiceFlow } from "../flows/invoice-flow.js";
import { meterEventFlow } from "../flows/meter-event-flow.js";
import { paymentIntentFlow } from "../flows/payment-intent-flow.js";
import { runGuarded, type GuardOutcome } from "../guard/guarded-run.js";
import type { Guard, GuardRecord } from "../guard/guard.js";
import type { BillingTelemetry } from "../telemetry/billing-telemetry.js";
import { periodClient, type ExpectedPeriodTotal } from "../stripe/period-client.js";
import type { StripeAccess } from "../stripe/stripe-access.js";

export const builtInFlows: Readonly<Record<string, FlowAdapter<never>>> = {
  "payment-intent": paymentIntentFlow as FlowAdapter<never>,
  charge: chargeFlow as FlowAdapter<never>,
  invoice: invoiceFlow as FlowAdapter<never>,
  "meter-event": meterEventFlow as FlowAdapter<never>,
};

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
  outcomes: ReconcileOutcome[];
}

export interface ReconcileOptions {
  guard: Guard;
  /** The consumer's way to Stripe: each record through its spend period's vault key (see `ReconcileOptions.stripe`). */
  stripe: StripeAccess;
  /** Sizes a period's vault key as the consumer does. */
  expectedPeriodTotalCents?: ExpectedPeriodTotal;
  /** Adapters by flow name; default the built-in four (pass your own to reconcile a custom flow). */
  flows?: Readonly<Record<string, FlowAdapter<never>>>;
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

export async function reconcile(options: ReconcileOptions): Promise<ReconcileReport> {
  const { guard } = options;
  const store = options.telemetry ? options.telemetry.instrumentStore(guard) : guard;
  const stripeFor = periodClient(options.stripe, options.expectedPeriodTotalCents);
  const clock = options.clock ?? guard.clock;
  const flows = options.flows ?? builtInFlows;
  const dryRun = options.dryRun ?? false;
  const report: ReconcileReport = {
    dryRun, examined: 0, completed: 0, declined: 0, unverifiable: 0, stillUnknown: 0, settledMeanwhile: 0, refused: 0, outcomes: [],
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
    const request = record.payload;
    let stripe: Stripe;
    try {
      // The period the consumer charged it under ("unpriced" when it spends nothing), so the same vault key and cap.
      stripe = await stripeFor(record.spend?.period ?? "unpriced");
    } catch (error) {
      note(record, { action: "still-unknown", detail: `no Stripe key for it: ${describeError(error)}` });
      continue;
    }
    const outcome = await runGuarded(
      store,
      {
        scope: record.scope,
        key: record.key,
        payload: request,
        ...(record.spend === null ? {} : { spend: record.spend }),
        flow: record.flow,
        idempotencyKey: record.idempotencyKey,
        owner: options.owner ?? "chargeguard-reconciler",
      },
      (context) => adapter.execute(stripe, request, flowContext(context, clock.now(), options.keyWindowMs)),
      { classify: (error) => adapter.classify(error, request, record.idempotencyKey), now: () => clock.now(), keyWindowMs: options.keyWindowMs ?? stripeKeyWindowMs },
    );
    note(record, actionOf(outcome));
  }
  return report;
}
