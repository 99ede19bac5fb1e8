// The reconciler: finishes billings left `pending` by a crash or an unknown Stripe outcome, without charging twice.
// Inside Stripe's 24 h idempotency window a retry with the record's own key is safe (Stripe replays the saved
// answer). After it the key may be pruned, so the PaymentIntent is looked up first, with `list` (consistent,
// unlike search), by customer and the metadata the request carries; only when Stripe has none is it charged.
import type Stripe from "stripe";
import type { Clock } from "../clock.js";
import { describeError } from "../describe-error.js";
import type { BillingGuardPort } from "../handler/billing-handler.js";
import type { BillingGuard } from "../guard/billing-guard.js";
import type { BillingTelemetry } from "../telemetry/billing-telemetry.js";
import type { BillingRecord, Lease } from "../guard/types.js";
import { classifyStripeError } from "../stripe/classify-error.js";
import { createPaymentIntent } from "../stripe/create-payment-intent.js";
import { periodClient, type ExpectedPeriodTotal } from "../stripe/period-client.js";
import type { StripeAccess } from "../stripe/stripe-access.js";
import type { PaymentIntentRequest } from "../stripe/payment-intent-params.js";

/** Stripe prunes idempotency keys once they are at least 24 hours old. */
export const stripeKeyWindowMs = 24 * 3_600_000;

/** Look back this much before the record's creation: our clock and Stripe's `created` may disagree a little. */
const lookupSlackSeconds = 3_600;

export const reconcileOwner = "chargeguard-reconciler";

export type ReconcileAction =
  | "retried-with-key"
  | "recovered-from-stripe"
  | "charged-after-window"
  | "declined"
  | "still-unknown"
  | "settled-meanwhile";

export interface ReconcileOutcome {
  customerId: string;
  billingPeriod: string;
  action: ReconcileAction;
  paymentIntentId?: string;
  detail?: string;
}

export interface ReconcileReport {
  dryRun: boolean;
  examined: number;
  /** After the key window: the PaymentIntent was found at Stripe and recorded (charged or declined). */
  recoveredFromStripe: number;
  /** Inside the key window: retried with the record's key and recorded as charged. */
  retriedWithKey: number;
  /** After the key window, Stripe had none: charged now. */
  chargedAfterWindow: number;
  /** Recorded as declined (by a retry, or found declined at Stripe). */
  declined: number;
  /** Left pending (Stripe unreachable, busy, or a request Stripe refuses): the next run tries again. */
  stillUnknown: number;
  /** Finished by a consumer between the listing and the reconciler's claim: nothing to do. */
  settledMeanwhile: number;
  outcomes: ReconcileOutcome[];
}

export interface ReconcileOptions {
  guard: BillingGuard;
  /**
   * The consumer's way to Stripe (`stripeAccess({ keys, ... })`): each billing goes through its period's vault key,
   * whose cap and allowlist the vault enforces, never through a key of the reconciler's own.
   */
  stripe: StripeAccess;
  /** Sizes a period's vault key as the consumer does (its `expectedPeriodTotalCents`, else `periodCapCents`). */
  expectedPeriodTotalCents?: ExpectedPeriodTotal;
  /** Default: the guard's clock (one clock drives leases, the key window and the reconciler). */
  clock?: Clock;
  keyWindowMs?: number;
  /** Most records examined in one run; default 100. */
  limit?: number;
  /** Look up and report what would be done; claim, charge and record nothing. */
  dryRun?: boolean;
  /** The lease owner recorded while the reconciler works on a record. */
  owner?: string;
  /** Counts the records it turns charged or declined (and times its guard calls) like the consumer's. */
  telemetry?: BillingTelemetry;
}

type Count = "retriedWithKey" | "recoveredFromStripe" | "chargedAfterWindow" | "declined" | "stillUnknown" | "settledMeanwhile";

const countedAs: Record<ReconcileAction, Count> = {
  "retried-with-key": "retriedWithKey",
  "recovered-from-stripe": "recoveredFromStripe",
  "charged-after-window": "chargedAfterWindow",
  declined: "declined",
  "still-unknown": "stillUnknown",
  "settled-meanwhile": "settledMeanwhile",
};

const chargedStatuses = new Set<Stripe.PaymentIntent.Status>(["succeeded", "processing", "requires_capture"]);

type Settlement =
  | { kind: "charged"; paymentIntentId: string }
  | { kind: "declined"; reason: string; paymentIntentId?: string }
  | { kind: "unknown"; detail: string };

function settlementOf(intent: Stripe.PaymentIntent): Settlement {
  if (chargedStatuses.has(intent.status)) return { kind: "charged", paymentIntentId: intent.id };
  if (intent.status === "requires_payment_method" || intent.status === "canceled") {
    const error = intent.last_payment_error;
    const reason = error ? `${error.decline_code || error.code || "card_declined"}: ${error.message ?? ""}` : `payment_intent_${intent.status}`;
    return { kind: "declined", reason, paymentIntentId: intent.id };
  }
  return { kind: "unknown", detail: `PaymentIntent ${intent.id} is ${intent.status}` };
}

async function createWithKey(stripe: Stripe, record: BillingRecord): Promise<Settlement> {
  try {
    return settlementOf(await createPaymentIntent(stripe, record.request as unknown as PaymentIntentRequest, record.idempotencyKey));
  } catch (error) {
    const failure = classifyStripeError(error);
    if (failure.kind === "declined") {
      return { kind: "declined", reason: `${failure.code}: ${failure.message}`, ...(failure.paymentIntentId ? { paymentIntentId: failure.paymentIntentId } : {}) };
    }
    // Invalid, configuration and spend-cap refusals need a person; the record stays pending and is reported.
    return { kind: "unknown", detail: `${failure.kind}: ${failure.detail}` };
  }
}

/** This billing's PaymentIntent at Stripe, by customer, creation time and metadata; a charged one wins over others. */
export async function findPaymentIntent(stripe: Stripe, record: BillingRecord): Promise<Stripe.PaymentIntent | undefined> {
  const customer = typeof record.request.customer === "string" ? record.request.customer : undefined;
  const gte = Math.floor(record.createdAt.getTime() / 1000) - lookupSlackSeconds;
  let found: Stripe.PaymentIntent | undefined;
  for await (const intent of stripe.paymentIntents.list({ ...(customer ? { customer } : {}), created: { gte }, limit: 100 })) {
    const metadata = intent.metadata ?? {};
    if (metadata.idempotency_key !== record.idempotencyKey) continue;
    if (metadata.billing_period !== undefined && metadata.billing_period !== record.billingPeriod) continue;
    if (chargedStatuses.has(intent.status)) return intent;
    found ??= intent;
  }
  return found;
}

/** Finishes stale pending billings; see the module comment for the rules. Never throws for one record's trouble. */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileReport> {
  const stripeFor = periodClient(options.stripe, options.expectedPeriodTotalCents);
  const guard = instrumented(options.guard, options.telemetry);
  const clock = options.clock ?? guard.clock;
  const keyWindowMs = options.keyWindowMs ?? stripeKeyWindowMs;
  const owner = options.owner ?? reconcileOwner;
  const dryRun = options.dryRun ?? false;
  const report: ReconcileReport = {
    dryRun,
    examined: 0,
    recoveredFromStripe: 0,
    retriedWithKey: 0,
    chargedAfterWindow: 0,
    declined: 0,
    stillUnknown: 0,
    settledMeanwhile: 0,
    outcomes: [],
  };
  const note = (record: BillingRecord, action: ReconcileAction, extra: { paymentIntentId?: string; detail?: string } = {}) => {
    report.outcomes.push({ customerId: record.customerId, billingPeriod: record.billingPeriod, action, ...extra });
    report[countedAs[action]]++;
  };

  for (const stale of await guard.stalePending(options.limit === undefined ? {} : { limit: options.limit })) {
    report.examined++;
    const insideWindow = clock.now() - stale.createdAt.getTime() < keyWindowMs;
    try {
      const stripe = await stripeFor(stale.billingPeriod);
      if (dryRun) {
        await planOnly(stripe, stale, insideWindow, note);
        continue;
      }
      const claim = await guard.claim(
        {
          customerId: stale.customerId,
          billingPeriod: stale.billingPeriod,
          amountCents: stale.amountCents,
          currency: stale.currency,
          idempotencyKey: stale.idempotencyKey,
          request: stale.request,
        },
        owner,
      );
      if (claim.status === "already-billed" || claim.status === "declined") {
        note(stale, "settled-meanwhile", { detail: claim.record.state });
        continue;
      }
      if (claim.status !== "claimed") {
        note(stale, "still-unknown", { detail: claim.status === "busy" ? "a consumer holds the lease" : claim.reason });
        continue;
      }
      await settle(guard, claim.lease, stripe, claim.record, insideWindow, note);
    } catch (error) {
      note(stale, "still-unknown", { detail: describeError(error) });
    }
  }
  return report;
}

type Note = (record: BillingRecord, action: ReconcileAction, extra?: { paymentIntentId?: string; detail?: string }) => void;

async function settle(
  guard: BillingGuardPort,
  lease: Lease,
  stripe: Stripe,
  record: BillingRecord,
  insideWindow: boolean,
  note: Note,
): Promise<void> {
  let settlement: Settlement;
  let chargedAction: ReconcileAction;
  try {
    if (insideWindow) {
      settlement = await createWithKey(stripe, record);
      chargedAction = "retried-with-key";
    } else {
      const existing = await findPaymentIntent(stripe, record);
      settlement = existing ? settlementOf(existing) : await createWithKey(stripe, record);
      chargedAction = existing ? "recovered-from-stripe" : "charged-after-window";
    }
  } catch (error) {
    await guard.releaseLease(lease);
    throw error;
  }
  switch (settlement.kind) {
    case "charged":
      await guard.markCharged(lease, { paymentIntentId: settlement.paymentIntentId });
      note(record, chargedAction, { paymentIntentId: settlement.paymentIntentId });
      return;
    case "declined":
      await guard.markDeclined(lease, {
        reason: settlement.reason,
        ...(settlement.paymentIntentId ? { paymentIntentId: settlement.paymentIntentId } : {}),
      });
      note(record, "declined", { ...(settlement.paymentIntentId ? { paymentIntentId: settlement.paymentIntentId } : {}), detail: settlement.reason });
      return;
    case "unknown":
      await guard.releaseLease(lease);
      note(record, "still-unknown", { detail: settlement.detail });
  }
}

async function planOnly(stripe: Stripe, record: BillingRecord, insideWindow: boolean, note: Note): Promise<void> {
  if (insideWindow) {
    note(record, "retried-with-key", { detail: "would retry with the record's idempotency key" });
    return;
  }
  const existing = await findPaymentIntent(stripe, record);
  if (!existing) {
    note(record, "charged-after-window", { detail: "Stripe has no PaymentIntent for it: would charge" });
    return;
  }
  const settlement = settlementOf(existing);
  if (settlement.kind === "declined") note(record, "declined", { paymentIntentId: existing.id, detail: `would record: ${settlement.reason}` });
  else if (settlement.kind === "charged") note(record, "recovered-from-stripe", { paymentIntentId: existing.id, detail: "would record it" });
  else note(record, "still-unknown", { paymentIntentId: existing.id, detail: settlement.detail });
}

/** The guard with the telemetry's wrapper over the calls that change records; its readers stay the guard's own. */
function instrumented(guard: BillingGuard, telemetry: BillingTelemetry | undefined): BillingGuardPort & Pick<BillingGuard, "clock" | "stalePending"> {
  // Disabled telemetry hands the guard itself back, whose methods a spread would not copy (they are its prototype's).
  if (!telemetry?.enabled) return guard;
  return { ...telemetry.instrumentGuard(guard), clock: guard.clock, stalePending: (options) => guard.stalePending(options) };
}
