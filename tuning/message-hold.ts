// How long a consumer may hold one message: THE formula every room uses for it. The queue's lock and renewal deadline
// (tuneQueue), the Container App's grace period and replica bounds (replicaBounds), the app's environment (infra),
// the runtime's start-up check and the generated consumer's `--print-settings` all call these functions, so none of
// them can forget the wait for a Stripe slot again. PURE: no Pulumi, no SDK.
import { describeMs } from "./iso-duration.js";

/** How a consumer runs its messages: the receiver's concurrency and its Stripe slots. */
export interface ConsumerConcurrency {
  /** Messages in flight per replica (the receiver's maxConcurrentCalls). */
  maxConcurrentCalls: number;
  /** Stripe calls at a time among them; fewer than maxConcurrentCalls pipelines (others record and settle). */
  maxConcurrentStripeCalls: number;
  /** Stripe calls one message makes (the flow's `calls`), default 1: each gets a whole delivery budget. */
  stripeCallsPerMessage?: number;
}

/** One message at a time, one Stripe slot: what a consumer runs with when nothing says otherwise. */
export const SERIAL_CONSUMER: Readonly<ConsumerConcurrency> = Object.freeze({ maxConcurrentCalls: 1, maxConcurrentStripeCalls: 1 });

/** Messages in flight wait for a Stripe slot when there are fewer slots than messages. */
export function waitsForStripeSlot(concurrency: ConsumerConcurrency): boolean {
  return concurrency.maxConcurrentStripeCalls < concurrency.maxConcurrentCalls;
}

/**
 * What is wrong with a concurrency, one sentence each (empty when fine). More messages than twice the slots could
 * wait longer than one delivery for a slot, which no lock or grace period below would cover.
 */
export function concurrencyProblems(concurrency: ConsumerConcurrency, names = { calls: "maxConcurrentCalls", slots: "maxConcurrentStripeCalls" }): string[] {
  const { maxConcurrentCalls: calls, maxConcurrentStripeCalls: slots } = concurrency;
  const problems: string[] = [];
  for (const [name, value] of [[names.calls, calls], [names.slots, slots]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) problems.push(`${name} must be a positive integer, got ${String(value)}`);
  }
  const perMessage = concurrency.stripeCallsPerMessage ?? 1;
  if (!Number.isSafeInteger(perMessage) || perMessage < 1) problems.push(`stripeCallsPerMessage must be a positive integer, got ${String(perMessage)}`);
  if (problems.length === 0 && (slots > calls || 2 * slots < calls)) {
    problems.push(`${names.slots} (${slots}) must be between half of ${names.calls} (${calls}) and all of it`);
  }
  return problems;
}

/**
 * How long one message may be held: one delivery budget per Stripe call it makes, and as long again when it may
 * wait for a Stripe slot (slots serve FIFO and at most as many messages wait as there are slots, so a wait is at
 * most one message's own calls).
 */
export function messageHoldMs(deliveryBudgetMs: number, concurrency: ConsumerConcurrency = SERIAL_CONSUMER): number {
  const ownCallsMs = (concurrency.stripeCallsPerMessage ?? 1) * deliveryBudgetMs;
  return waitsForStripeSlot(concurrency) ? 2 * ownCallsMs : ownCallsMs;
}

/** In words, for explanations and errors: what the hold is made of. */
export function describeHold(deliveryBudgetMs: number, concurrency: ConsumerConcurrency = SERIAL_CONSUMER): string {
  const calls = concurrency.stripeCallsPerMessage ?? 1;
  const own = calls === 1 ? `its delivery budget ${describeMs(deliveryBudgetMs)}` : `${calls} Stripe calls x the delivery budget ${describeMs(deliveryBudgetMs)}`;
  return waitsForStripeSlot(concurrency)
    ? `${describeMs(messageHoldMs(deliveryBudgetMs, concurrency))}: ${own}, plus as long again waiting for one of ${concurrency.maxConcurrentStripeCalls} Stripe slots shared by ${concurrency.maxConcurrentCalls} messages in flight`
    : `${describeMs(messageHoldMs(deliveryBudgetMs, concurrency))}: ${own} (no wait for a Stripe slot: one per message in flight)`;
}

/**
 * Whether the queue's lock, renewed for `maxAutoLockRenewalDurationInMs`, covers a message waiting for a Stripe slot;
 * the sentence the runtime refuses to start with, and `--print-settings` reports, when it does not. A consumer with a
 * slot per message needs its lock to cover one delivery only (coverageProblems): a lock that lapses between the
 * steps of a multi-call flow meets the guard's lease, which lasts the whole hold.
 */
export function holdProblems(
  deliveryBudgetMs: number,
  concurrency: ConsumerConcurrency,
  lock: { lockDurationMs: number; maxAutoLockRenewalDurationInMs: number },
): string[] {
  if (!waitsForStripeSlot(concurrency)) return [];
  const heldMs = messageHoldMs(deliveryBudgetMs, concurrency);
  const coversMs = Math.max(lock.lockDurationMs, lock.maxAutoLockRenewalDurationInMs);
  if (coversMs >= heldMs) return [];
  return [
    `with ${concurrency.maxConcurrentCalls} messages in flight for ${concurrency.maxConcurrentStripeCalls} Stripe calls a message may be held ${heldMs} ms ` +
      `(a wait for a slot plus its own delivery) but the lock covers ${coversMs} ms: set maxAutoLockRenewalDurationInMs to at least ${heldMs}, ` +
      "or deploy the queue tuned for this concurrency (its lock and renewal then cover it)",
  ];
}
