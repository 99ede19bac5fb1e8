// The harness's timing, scaled down so a 10,000-event chaos run takes minutes on two cores: a 2.5 s lock instead of
// Azure's 60 s default, and every fault's duration set relative to it, so the same races happen, only faster.
import { DEFAULT_PROCESSING_MS, DEFAULT_SAFETY_MARGIN_MS, deliveryBudgetMs, gracePeriodSeconds, messageHoldMs } from "../../tuning/index.js";

/** The lock the harness's 2.5 s stands for: Service Bus's default LockDuration. */
const azureLockMs = 60_000;

export interface HarnessSettings {
  /** LockDuration of every contender's queue. */
  lockDurationMs: number;
  maxDeliveryCount: number;
  /** Duplicate detection on, as a billing queue should have it (it must not swallow producer duplicates: new ids). */
  duplicateDetectionWindowMs: number;
  /** Stripe latency for `slow-stripe`: past the lock and past a renewal deadline of one lock plus one lock. */
  slowStripeMs: number;
  /** Handed to every contender: above `slowStripeMs`, so the slow call completes (the seed's ch_A) after the lock lapsed. */
  stripeTimeoutMs: number;
  /** 0: every injected Stripe fault reaches the consumer (stands for an outage longer than the SDK's own retries). */
  stripeMaxNetworkRetries: number;
  /**
   * Backoff of the retries a consumer schedules after an unknown outcome (for consumers that take one): scaled down
   * with the lock, so a Stripe fault's retry comes round in a second, not in the production default's 5 s doubling.
   */
  retryPolicy: { baseDelayMs: number; maxDelayMs: number };
  /** Concurrent handlers per replica. */
  maxConcurrentCalls: number;
  /**
   * Clock time a killed replica's replacement takes to come up (a pod restart): the clock moves this much at each
   * kill, so the dead replica's guard lease lapses without the run waiting for it in real time.
   */
  restartDelayMs: number;
  /**
   * How long the fleet's stop waits for a killed replica's close() before leaving it behind like a dead process's
   * sockets. The dead replica received nothing since its kill and its frozen flow never resumes, so the close only
   * frees connections: one lock, not the 15 s it was (its close waits out the consumer's hold for the frozen flow).
   */
  killCloseBoundMs: number;
  /**
   * The queue must stay empty this long (and no Stripe call in flight) before a phase counts as settled: two polls.
   * A retry the consumers schedule counts as pending from the moment it is scheduled and the slow Stripe calls are
   * watched; what else runs after its message left the queue (a broken example's handler after an early complete)
   * takes milliseconds at the emulator.
   */
  quietMs: number;
  /** A contender that has not settled by then is stopped and judged on what happened. */
  contenderTimeoutMs: number;
  /** How far the clock moves for `dlq-resubmit` and `nightly-resend`: past Stripe's 24 h key window. */
  keyWindowJumpMs: number;
  /**
   * `scale-in`: time between a replica's SIGTERM and its SIGKILL, as Container Apps' terminationGracePeriodSeconds.
   * Default: the queue's delivery budget (harnessDeliveryBudgetMs) rounded up to whole seconds, the bound the infra
   * gives the Container App; set it shorter to see SIGKILL cut charges in flight.
   */
  scaleInGracePeriodMs: number;
  /**
   * `scale-in`: Stripe latency of the call in flight when its replica is told to stop: within one lock (the deployed
   * lock covers a delivery, no renewal needed) and far below the grace period, above a too-short one.
   */
  scaleInStripeMs: number;
}

/**
 * The queue's delivery budget as the harness runs it: the tuning's deliveryBudgetMs for the Stripe client every
 * contender gets (its timeout, no SDK retries), with the budget's own processing time and safety margin scaled
 * down like the lock (2.5 s for 60 s). This is what terminationGracePeriodSeconds must cover in the harness.
 */
export function harnessDeliveryBudgetMs(settings: Pick<HarnessSettings, "lockDurationMs" | "stripeTimeoutMs" | "stripeMaxNetworkRetries">): number {
  const scale = settings.lockDurationMs / azureLockMs;
  return deliveryBudgetMs({
    stripe: { timeoutMs: settings.stripeTimeoutMs, maxNetworkRetries: settings.stripeMaxNetworkRetries },
    processingMs: Math.round(DEFAULT_PROCESSING_MS * scale),
    safetyMarginMs: Math.round(DEFAULT_SAFETY_MARGIN_MS * scale),
  });
}

/**
 * The guard's lease a generated consumer gets in the harness: one harness delivery budget per Stripe call its events
 * make, as the consumer sizes its own from the tuning, but with the budget's processing time and safety margin
 * scaled down like the lock. Left to itself the consumer would take the production margins (2 s + 10 s) on the
 * harness's 10 s Stripe timeout: a 22 s lease against a 2.5 s lock, and every retry that meets its own earlier
 * attempt's lease (a 409, a 500, a lock lapsed mid-call) waited out most of it in real time.
 */
export function harnessLeaseMs(settings: Pick<HarnessSettings, "lockDurationMs" | "stripeTimeoutMs" | "stripeMaxNetworkRetries" | "maxConcurrentCalls">, stripeCalls: number): number {
  return messageHoldMs(harnessDeliveryBudgetMs(settings), {
    maxConcurrentCalls: settings.maxConcurrentCalls,
    maxConcurrentStripeCalls: settings.maxConcurrentCalls,
    stripeCallsPerMessage: stripeCalls,
  });
}

export function harnessSettings(events: number): HarnessSettings {
  const lockDurationMs = 2_500;
  const stripeTimeoutMs = lockDurationMs * 4;
  const stripeMaxNetworkRetries = 0;
  const slowStripeMs = Math.round(lockDurationMs * 2.4);
  const maxConcurrentCalls = 8;
  return {
    lockDurationMs,
    maxDeliveryCount: 10,
    duplicateDetectionWindowMs: 10 * 60_000,
    slowStripeMs,
    stripeTimeoutMs,
    stripeMaxNetworkRetries,
    retryPolicy: { baseDelayMs: lockDurationMs / 5, maxDelayMs: lockDurationMs * 4 },
    maxConcurrentCalls,
    restartDelayMs: 30_000,
    killCloseBoundMs: lockDurationMs,
    quietMs: 500,
    contenderTimeoutMs: 180_000 + events * 30,
    keyWindowJumpMs: 25 * 60 * 60_000,
    // The tuning's message hold, as the infra gives the Container App: every contender's messages have a Stripe call each
    // (no slot to wait for), so the hold is one delivery budget.
    scaleInGracePeriodMs:
      gracePeriodSeconds(
        messageHoldMs(harnessDeliveryBudgetMs({ lockDurationMs, stripeTimeoutMs, stripeMaxNetworkRetries }), {
          maxConcurrentCalls,
          maxConcurrentStripeCalls: maxConcurrentCalls,
        }),
      ) * 1000,
    scaleInStripeMs: Math.round(lockDurationMs * 0.8),
  };
}
