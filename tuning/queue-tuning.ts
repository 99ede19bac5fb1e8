// The queue tuning maths: one latency budget in, every number that must agree out (queue lock, consumer lock
// renewal deadline, Stripe client timeout and retries, delivery count, TTL, duplicate-detection window).
// PURE: no Pulumi import. Infra, the runtime and the templates import it through this room's index.
import { ChargeguardError } from "../errors/index.js";
import { describeMs, formatIsoDuration, parseIsoDuration } from "./iso-duration.js";
import { concurrencyProblems, describeHold, holdProblems, messageHoldMs, waitsForStripeSlot, type ConsumerConcurrency } from "./message-hold.js";

export interface StripeBudget {
  /** The Stripe client's `timeout` per attempt (the SDK's default is 80000). */
  timeoutMs: number;
  /** The Stripe client's `maxNetworkRetries` (the SDK's default is 2: three attempts). */
  maxNetworkRetries: number;
  /** p99 of a 3-D Secure wait inside one delivery, if the consumer waits for one. */
  threeDsP99Ms?: number;
}

export interface LatencyBudget {
  stripe: StripeBudget;
  /** Our own work per delivery (parse, database), default 2000. */
  processingMs?: number;
  /** Headroom on top of the worst case (clock skew, GC pauses, slow settles), default 10000. */
  safetyMarginMs?: number;
  /** Deliveries before Service Bus dead-letters the message, default 10. */
  maxDeliveryCount?: number;
  /** Whether the consumer may auto-renew locks, default true. */
  renewal?: boolean;
  /** A lock duration to use instead of the computed one (ISO 8601, e.g. "PT2M"). */
  lockDuration?: string;
  /**
   * How the queue's consumer runs its messages; default one at a time. With fewer Stripe slots than messages in
   * flight a message may also wait for a slot (messageHoldMs), and the lock and renewal cover that wait too.
   */
  concurrency?: ConsumerConcurrency;
}

export interface ConsumerSettings {
  /** The receiver's `maxAutoLockRenewalDurationInMs`: 0 when one lock covers the worst case. */
  maxAutoLockRenewalDurationInMs: number;
  /** The Stripe client's `timeout`. */
  stripeTimeoutMs: number;
  /** The Stripe client's `maxNetworkRetries`. */
  stripeMaxNetworkRetries: number;
}

export interface QueueTuning {
  worstCaseStripeMs: number;
  /** worstCaseStripeMs + processing + safety margin: how long one delivery may take. */
  deliveryBudgetMs: number;
  /** How long the consumer may hold one message (messageHoldMs): the lock and renewal cover it. */
  messageHoldMs: number;
  /** The budget this was computed from (the runtime recomputes the hold from it when it overrides a setting). */
  budget: LatencyBudget;
  lockDuration: string;
  lockDurationMs: number;
  maxDeliveryCount: number;
  defaultMessageTimeToLive: string;
  defaultMessageTimeToLiveMs: number;
  duplicateDetectionHistoryTimeWindow: string;
  duplicateDetectionWindowMs: number;
  consumer: ConsumerSettings;
  /** Plain words per number. */
  explanation: Record<string, string>;
}

/** Bad budgets: `problems` has one sentence per problem, each naming the numbers and what to change. */
export class TuningError extends ChargeguardError {
  override readonly name = "TuningError";
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
  }
}

export const LOCK_MIN_MS = 5_000;
export const LOCK_MAX_MS = 300_000;
/** Computed locks are rounded up to this step so they read as plain durations (PT1M30S, PT2M). */
export const LOCK_STEP_MS = 30_000;
export const MIN_DELIVERY_COUNT = 3;
export const MAX_DELIVERY_COUNT = 50;
export const DEFAULT_PROCESSING_MS = 2_000;
export const DEFAULT_SAFETY_MARGIN_MS = 10_000;
export const DEFAULT_MAX_DELIVERY_COUNT = 10;
/** Basic tier's ceiling and our floor: billing events should wait out a long outage, not expire. */
export const MIN_TTL_MS = 14 * 86_400_000;
export const DUPLICATE_WINDOW_MIN_MS = 10 * 60_000;
export const DUPLICATE_WINDOW_MAX_MS = 7 * 86_400_000;
/**
 * The Stripe budget a consumer uses when no stack gives one (`chargeguard new consumer` without `--stack`, the runtime
 * without a tuning): 20 s per attempt, one retry, so one lock of PT1M covers a delivery.
 */
export const DEFAULT_STRIPE_BUDGET: Readonly<StripeBudget> = Object.freeze({ timeoutMs: 20_000, maxNetworkRetries: 1 });
export const MAX_STRIPE_RETRIES = 10;
export const MAX_STRIPE_TIMEOUT_MS = 600_000;
/** stripe-node 23: `min(0.5 s * 2^(n-1), 5 s)` before retry n; jitter only shortens it (never below 0.5 s). */
const STRIPE_INITIAL_RETRY_DELAY_MS = 500;
const STRIPE_MAX_RETRY_DELAY_MS = 5_000;
const DAY_MS = 86_400_000;

/** The SDK's worst-case backoff before retry n (1-based). */
export function stripeBackoffMs(retry: number): number {
  return Math.min(STRIPE_INITIAL_RETRY_DELAY_MS * 2 ** (retry - 1), STRIPE_MAX_RETRY_DELAY_MS);
}

/** Worst-case time of one Stripe call: attempts x timeout + the SDK's backoff between them + the 3-D Secure wait. */
export function worstCaseStripeMs(stripe: StripeBudget): number {
  const attempts = stripe.maxNetworkRetries + 1;
  let backoff = 0;
  for (let retry = 1; retry <= stripe.maxNetworkRetries; retry++) backoff += stripeBackoffMs(retry);
  return attempts * stripe.timeoutMs + backoff + (stripe.threeDsP99Ms ?? 0);
}

/** How long one delivery may take: the Stripe worst case plus our processing and the safety margin. */
export function deliveryBudgetMs(budget: LatencyBudget): number {
  return (
    worstCaseStripeMs(budget.stripe) +
    (budget.processingMs ?? DEFAULT_PROCESSING_MS) +
    (budget.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS)
  );
}

/**
 * Checks that a queue lock and a consumer's renewal deadline cover a budget: either one lock outlasts the
 * delivery budget (no renewal needed), or the consumer renews until at least the delivery budget and at least
 * twice the Stripe worst case. Returns one sentence per problem (empty when covered).
 */
export function coverageProblems(
  budget: LatencyBudget,
  settings: { lockDurationMs: number; maxAutoLockRenewalDurationInMs: number },
): string[] {
  const worst = worstCaseStripeMs(budget.stripe);
  const needed = deliveryBudgetMs(budget);
  const lock = settings.lockDurationMs;
  const renewal = settings.maxAutoLockRenewalDurationInMs;
  // The wait for a Stripe slot (when the budget names a pipelined consumer) must be covered as well.
  const held = budget.concurrency ? holdProblems(needed, budget.concurrency, settings) : [];
  if (lock >= needed) return held;
  const shortfall = `lock ${describeMs(lock)} is shorter than the delivery budget ${describeMs(needed)} (Stripe worst case ${describeMs(worst)} + processing + margin)`;
  if (renewal <= 0) return [`${shortfall} and the consumer does not renew locks: lengthen the lock or enable renewal`];
  const minimum = Math.max(needed, 2 * worst);
  if (renewal < minimum) {
    return [
      `${shortfall} and the consumer renews only until ${describeMs(renewal)}: set maxAutoLockRenewalDurationInMs to at least ${minimum} (2 x the Stripe worst case, and the whole delivery budget)`,
    ];
  }
  return held;
}

function budgetProblems(budget: LatencyBudget): string[] {
  const problems: string[] = [];
  const wholeIn = (field: string, value: unknown, min: number, max: number) => {
    if (value === undefined) return;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      problems.push(`${field} is ${JSON.stringify(value)}: expected a whole number from ${min} to ${max}`);
    }
  };
  const stripe = budget.stripe as StripeBudget | undefined;
  if (!stripe || typeof stripe !== "object") {
    return ["stripe is missing: give { timeoutMs, maxNetworkRetries } as the Stripe client is configured"];
  }
  if (stripe.timeoutMs === undefined) problems.push("stripe.timeoutMs is missing: give the Stripe client's timeout");
  wholeIn("stripe.timeoutMs", stripe.timeoutMs, 1, MAX_STRIPE_TIMEOUT_MS);
  if (stripe.maxNetworkRetries === undefined) {
    problems.push("stripe.maxNetworkRetries is missing: give the Stripe client's maxNetworkRetries (SDK default 2)");
  }
  wholeIn("stripe.maxNetworkRetries", stripe.maxNetworkRetries, 0, MAX_STRIPE_RETRIES);
  wholeIn("stripe.threeDsP99Ms", stripe.threeDsP99Ms, 0, DAY_MS);
  wholeIn("processingMs", budget.processingMs, 0, DAY_MS);
  wholeIn("safetyMarginMs", budget.safetyMarginMs, 0, DAY_MS);
  if (budget.maxDeliveryCount !== undefined) {
    const count = budget.maxDeliveryCount;
    if (!Number.isInteger(count) || count < MIN_DELIVERY_COUNT || count > MAX_DELIVERY_COUNT) {
      problems.push(
        `maxDeliveryCount is ${JSON.stringify(count)}: use ${MIN_DELIVERY_COUNT} to ${MAX_DELIVERY_COUNT} (fewer dead-letters a billing event on the first crash; more lets a poison message loop for days)`,
      );
    }
  }
  if (budget.renewal !== undefined && typeof budget.renewal !== "boolean") {
    problems.push(`renewal is ${JSON.stringify(budget.renewal)}: expected true or false`);
  }
  if (budget.concurrency !== undefined) problems.push(...concurrencyProblems(budget.concurrency).map((problem) => `concurrency.${problem}`));
  return problems;
}

function requestedLockMs(lockDuration: string | undefined, problems: string[]): number | undefined {
  if (lockDuration === undefined) return undefined;
  let ms: number;
  try {
    ms = parseIsoDuration(lockDuration);
  } catch (error) {
    problems.push(`lockDuration: ${(error as Error).message}`);
    return undefined;
  }
  if (ms < LOCK_MIN_MS || ms > LOCK_MAX_MS) {
    problems.push(`lockDuration ${lockDuration} is ${describeMs(ms)}: Service Bus allows 5 s to 5 min (PT5S..PT5M)`);
    return undefined;
  }
  return ms;
}

/** The largest Stripe timeout whose worst case still fits in one maximal lock with this budget. */
function largestFittingTimeoutMs(budget: LatencyBudget): number {
  const factor = messageHoldMs(1, budget.concurrency);
  const zeroTimeout = deliveryBudgetMs({ ...budget, stripe: { ...budget.stripe, timeoutMs: 0 } });
  return Math.floor((LOCK_MAX_MS / factor - zeroTimeout) / (budget.stripe.maxNetworkRetries + 1) / 1000) * 1000;
}

const roundUp = (ms: number, step: number) => Math.ceil(ms / step) * step;
const clamp = (ms: number, min: number, max: number) => Math.min(Math.max(ms, min), max);

/** Computes every queue and consumer number from one latency budget, or throws a TuningError saying what to change. */
export function tuneQueue(budget: LatencyBudget): QueueTuning {
  const problems = budgetProblems(budget);
  const requestedLock = requestedLockMs(budget.lockDuration, problems);
  if (problems.length > 0) throw new TuningError(problems);

  const { stripe } = budget;
  const renewalAllowed = budget.renewal ?? true;
  const maxDeliveryCount = budget.maxDeliveryCount ?? DEFAULT_MAX_DELIVERY_COUNT;
  const worst = worstCaseStripeMs(stripe);
  const needed = deliveryBudgetMs(budget);
  // What the lock must cover: the delivery, and a wait for a Stripe slot when the consumer pipelines.
  const held = messageHoldMs(needed, budget.concurrency);
  const fitsOneLock = held <= LOCK_MAX_MS;

  const lockDurationMs = requestedLock ?? (fitsOneLock ? clamp(roundUp(held, LOCK_STEP_MS), LOCK_MIN_MS, LOCK_MAX_MS) : LOCK_MAX_MS);
  const lockCovers = lockDurationMs >= held;
  if (!lockCovers && !renewalAllowed) {
    const fit = largestFittingTimeoutMs(budget);
    throw new TuningError([
      `${budget.concurrency && waitsForStripeSlot(budget.concurrency) ? `a message may be held ${describeHold(needed, budget.concurrency)}; ` : ""}a delivery may take ${describeMs(needed)} (Stripe worst case ${describeMs(worst)} = ${stripe.maxNetworkRetries + 1} attempts x ${describeMs(stripe.timeoutMs)} timeout + backoff + ${describeMs(stripe.threeDsP99Ms ?? 0)} 3-D Secure; processing ${describeMs(budget.processingMs ?? DEFAULT_PROCESSING_MS)}; margin ${describeMs(budget.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS)}) but the lock is ${describeMs(lockDurationMs)} and renewal is disabled: enable renewal, ` +
        (requestedLock !== undefined && fitsOneLock
          ? `or lengthen lockDuration to at least ${formatIsoDuration(roundUp(held, 1000))}`
          : fit > 0
            ? `or lower stripe.timeoutMs to at most ${fit} (with maxNetworkRetries ${stripe.maxNetworkRetries}) so one lock of at most 5 min covers it`
            : `or lower stripe.maxNetworkRetries, processingMs or threeDsP99Ms: even a zero timeout does not fit in a 5 min lock`),
    ]);
  }
  // Twice the delivery budget (a slow charge and a slow retry inside it), and never less than the whole hold.
  const maxAutoLockRenewalDurationInMs = lockCovers ? 0 : roundUp(Math.max(2 * needed, held), 1000);

  const holdPerDeliveryMs = lockCovers ? lockDurationMs : maxAutoLockRenewalDurationInMs + lockDurationMs;
  const allDeliveriesMs = maxDeliveryCount * holdPerDeliveryMs;
  const ttlMs = Math.max(MIN_TTL_MS, roundUp(allDeliveriesMs, DAY_MS));
  const duplicateWindowMs = clamp(roundUp(allDeliveriesMs, 60_000), DUPLICATE_WINDOW_MIN_MS, DUPLICATE_WINDOW_MAX_MS);

  const consumer: ConsumerSettings = {
    maxAutoLockRenewalDurationInMs,
    stripeTimeoutMs: stripe.timeoutMs,
    stripeMaxNetworkRetries: stripe.maxNetworkRetries,
  };
  const lockDuration = formatIsoDuration(lockDurationMs);
  const backoffMs = worst - (stripe.maxNetworkRetries + 1) * stripe.timeoutMs - (stripe.threeDsP99Ms ?? 0);

  return {
    worstCaseStripeMs: worst,
    deliveryBudgetMs: needed,
    messageHoldMs: held,
    budget,
    lockDuration,
    lockDurationMs,
    maxDeliveryCount,
    defaultMessageTimeToLive: formatIsoDuration(ttlMs),
    defaultMessageTimeToLiveMs: ttlMs,
    duplicateDetectionHistoryTimeWindow: formatIsoDuration(duplicateWindowMs),
    duplicateDetectionWindowMs: duplicateWindowMs,
    consumer,
    explanation: {
      worstCaseStripeMs: `One Stripe call can take ${describeMs(worst)}: ${stripe.maxNetworkRetries + 1} attempts x ${describeMs(stripe.timeoutMs)} timeout, ${describeMs(backoffMs)} of SDK backoff between them (min(0.5 s x 2^(n-1), 5 s) each), and ${describeMs(stripe.threeDsP99Ms ?? 0)} of 3-D Secure wait. With processing and margin one delivery needs ${describeMs(needed)}.`,
      messageHoldMs: `A message may be held ${describeHold(needed, budget.concurrency)}. The lock, the renewal deadline, the grace period and the runtime's start-up check all cover this.`,
      lockDuration: lockCovers
        ? `${lockDuration} (${describeMs(lockDurationMs)}) outlasts the longest hold of a message, ${describeMs(held)}, so the lock cannot lapse mid-charge even when Service Bus throttles lock renewals.`
        : `${lockDuration} is the longest lock Service Bus allows and the longest hold of a message, ${describeMs(held)}, does not fit in it, so the consumer must renew; a long lock keeps renewals (and renew-lock throttling) rare.`,
      maxAutoLockRenewalDurationInMs: lockCovers
        ? "0: one lock covers the delivery, so the consumer does not renew (renewals cost namespace credits, and a throttled renewal is what lets a lock lapse mid-charge). A delivery that overruns is redelivered and meets the billing guard's lease."
        : `${maxAutoLockRenewalDurationInMs} ms: the consumer renews the lock for twice the delivery budget and at least the longest hold (${describeMs(maxAutoLockRenewalDurationInMs)}), so one slow charge plus one slow retry, or a wait for a Stripe slot, still hold the message.`,
      stripeTimeoutMs: `${stripe.timeoutMs}: the Stripe client's timeout per attempt; the lock and renewal above are computed from it, so change it here and redeploy, not in the consumer alone.`,
      stripeMaxNetworkRetries: `${stripe.maxNetworkRetries}: the Stripe client's own retries inside one call (${stripe.maxNetworkRetries + 1} attempts); every extra retry adds a full timeout to the worst case.`,
      maxDeliveryCount: `${maxDeliveryCount}: deliveries before Service Bus dead-letters the event (and the dead-letter alert fires); the consumer reschedules unknown Stripe outcomes itself, so deliveries are spent only on crashes and lapsed locks.`,
      defaultMessageTimeToLive: `${formatIsoDuration(ttlMs)}: at least 14 days and longer than all ${maxDeliveryCount} deliveries could hold the message (${describeMs(allDeliveriesMs)}); an expired event is dead-lettered, never dropped.`,
      duplicateDetectionHistoryTimeWindow: `${formatIsoDuration(duplicateWindowMs)}: a producer's re-send with the same messageId within the time all deliveries could take (${describeMs(allDeliveriesMs)}, kept within 10 min..7 days) is dropped by Service Bus; later duplicates meet the billing guard.`,
    },
  };
}
