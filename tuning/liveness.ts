// When a billing consumer's receive loop counts as stalled: the number the runtime's liveness (and with it the
// container's /live probe) judges by. PURE. One source: the queue's lock, which infra tunes and the runtime reads.

/** How often an idle consumer asks the broker, over its receiver's connection, whether it still answers (a peek). */
export const RECEIVE_PROBE_EVERY_MS = 10_000;

/** Service Bus's default LockDuration (PT1M): the lock a consumer without a tuning assumes. */
export const DEFAULT_LOCK_DURATION_MS = 60_000;

/**
 * How long the receive loop may go without a turn (a message received or finished, a probe answered) before the
 * replica is not live: the queue's lock, since a loop that reached no broker for a whole lock has lost every lock it
 * held and a restart loses nothing more; never less than three probes, so one slow answer is not a stall.
 */
export function receiveStallMs(lockDurationMs: number = DEFAULT_LOCK_DURATION_MS, probeEveryMs: number = RECEIVE_PROBE_EVERY_MS): number {
  return Math.max(lockDurationMs, 3 * probeEveryMs);
}

/**
 * A message in flight longer than this is stuck in its processing (every Stripe call and the guard's round trips
 * have their own timeouts): the longest hold of a message (messageHoldMs) plus one stall.
 */
export function inFlightStallMs(messageHoldMs: number, stallMs: number): number {
  return messageHoldMs + stallMs;
}
