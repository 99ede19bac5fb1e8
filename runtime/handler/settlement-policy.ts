// What to do with a message once the billing flow knows the outcome: a pure table, so every branch is tested and
// no consumer improvises.
//
// Never abandon. `abandonMessage` makes the message visible again at once (deliveryCount + 1, no backoff): during a
// Stripe outage every replica hammers Stripe in a tight loop until MaxDeliveryCount dead-letters real billings.
// An unknown outcome is instead re-enqueued as a scheduled message after an exponential backoff, and the original
// is completed. The retry meets the guard and the stable idempotency key, so it cannot charge twice.
//
// The autoComplete trap: with `autoCompleteMessages: true` (the SDK default) a handler that throws is abandoned,
// and so it is with `false` too (@azure/service-bus 7.9.5 abandons on a throw in peekLock mode either way), so the
// handler must never throw. And "leave it unsettled" is no backoff either: with `autoCompleteMessages: false` an
// unsettled message keeps its lock renewed until `maxAutoLockRenewalDurationInMs`, then lapses and is redelivered
// at once, while holding a concurrency slot the whole time.
import { createHash } from "node:crypto";
import type { DependencyFault } from "../guard/dependency-fault.js";
import { faultLabel, settleWait } from "../resilience/wait-policy.js";

/** What the flow learned about one message. */
export type BillingOutcome =
  /** Stripe charged and the guard recorded it; `objectId`: the Stripe object that holds the money (for the log). */
  | { kind: "charged"; objectId?: string }
  /** The guard already holds a charged or completed record: Stripe is not called again. */
  | { kind: "already-billed"; objectId?: string }
  /** The card was declined (now, or on an earlier delivery): recorded, never retried with the card. */
  | { kind: "declined" }
  /** The event or the Stripe parameters are wrong: no retry can fix them. */
  | { kind: "invalid"; reason: string; detail: string }
  /** The period's spend cap (ours or the vault key's) refuses the amount. */
  | { kind: "spend-cap"; detail: string }
  /** Credentials or permissions are wrong: nothing was charged; an operator must act, then resubmit. */
  | { kind: "configuration"; detail: string }
  /**
   * The charge may or may not exist: timeout, connection reset, 5xx, 409 in progress, 429, lease busy. `fault`: a
   * dependency was throttled or down (resilience/), which is a wait until the event's deadline, not an attempt.
   * `leaseHeldMs`: a twin delivery holds the billing's lease for at most this long (the guard said busy): a wait too,
   * asking again sooner than the lease's end (the twin usually settles within seconds), never later.
   */
  | { kind: "unknown"; detail: string; fault?: DependencyFault; leaseHeldMs?: number };

export interface RetryPolicy {
  /** Attempts in total, the first delivery included; the next one past it is dead-lettered. */
  maxAttempts: number;
  /** Delay before retry 1; doubles per attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 8, baseDelayMs: 5_000, maxDelayMs: 15 * 60_000 };

/** Where the message is in its retry chain (read from the message, see `retry-chain.ts`). */
export interface AttemptInfo {
  /** 1 for the first delivery of an event, n for the n-th scheduled retry plus one. */
  attempt: number;
  /** Identifies this chain of retries; the next retry's messageId derives from it. */
  chainId: string;
  /** The stable idempotency key; seeds the deterministic jitter. */
  idempotencyKey: string;
  /** Waits so far (a dependency throttled or down); default 0. */
  waits?: number;
  /** The event's deadline (epoch ms) and now: past it, a wait gives up; default never. */
  deadline?: number;
  now?: number;
}

export type SettlementAction =
  | { action: "complete" }
  | { action: "dead-letter"; reason: string; description: string }
  /** `waits`: set when this retry is a wait (not an attempt); the retry carries it. */
  | { action: "retry-later"; attempt: number; delayMs: number; messageId: string; description: string; waits?: number };

/** The outcome as the consumer's log line names it: `charged pi_...`, so an operator finds the money in Stripe. */
export function outcomeLabel(outcome: BillingOutcome): string {
  if ((outcome.kind === "charged" || outcome.kind === "already-billed") && outcome.objectId !== undefined) return `${outcome.kind} ${outcome.objectId}`;
  return outcome.kind;
}

/** The table: outcome -> action. Pure. */
export function settle(outcome: BillingOutcome, info: AttemptInfo, policy: RetryPolicy = defaultRetryPolicy): SettlementAction {
  switch (outcome.kind) {
    case "charged":
    case "already-billed":
    case "declined":
      return { action: "complete" };
    case "invalid":
      return { action: "dead-letter", reason: outcome.reason, description: outcome.detail };
    case "spend-cap":
      return { action: "dead-letter", reason: "SpendCapExceeded", description: outcome.detail };
    case "configuration":
      return { action: "dead-letter", reason: "StripeConfigurationError", description: outcome.detail };
    case "unknown": {
      if (outcome.fault !== undefined || outcome.leaseHeldMs !== undefined) {
        const waitInfo = { ...info, waits: info.waits ?? 0, deadline: info.deadline ?? Infinity, now: info.now ?? Date.now() };
        // The policy's backoff, kept short: 1 s doubling to 10 s at most, so a backlog drains soon after a recovery.
        const backoff = { firstDelayMs: Math.min(1_000, policy.baseDelayMs), maxDelayMs: Math.min(10_000, policy.maxDelayMs) };
        if (outcome.fault !== undefined) return settleWait(faultLabel(outcome.fault), outcome.detail, waitInfo, { backoff });
        // A lease a few ms from its end is asked again just after it, not in a hot loop.
        const leaseEndsMs = Math.max(100, outcome.leaseHeldMs ?? 0);
        return settleWait("billing lease held by a twin delivery", outcome.detail, waitInfo, { backoff, maxDelayMs: leaseEndsMs });
      }
      const next = info.attempt + 1;
      if (next > policy.maxAttempts) {
        return {
          action: "dead-letter",
          reason: "RetryAttemptsExhausted",
          description: `outcome still unknown after ${info.attempt} attempts (limit ${policy.maxAttempts}): ${outcome.detail}`,
        };
      }
      const delayMs = backoffDelayMs(info.attempt, info.idempotencyKey, policy);
      return {
        action: "retry-later",
        attempt: next,
        delayMs,
        messageId: retryMessageId(info.chainId, next),
        description: outcome.detail,
      };
    }
  }
}

/**
 * Exponential backoff with "equal jitter": half the step fixed, half spread. The spread comes from a hash of the
 * idempotency key and attempt, not Math.random: the same retry always waits the same time (reproducible tests,
 * explainable logs), while different events that failed together spread out.
 */
export function backoffDelayMs(attempt: number, idempotencyKey: string, policy: RetryPolicy = defaultRetryPolicy): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const digest = createHash("sha256").update(`${idempotencyKey}\u0000${attempt}`).digest();
  const fraction = digest.readUInt32BE(0) / 0x1_0000_0000;
  return Math.round(step / 2 + (step / 2) * fraction);
}

/** Service Bus caps messageId at 128 characters. */
const maxMessageIdLength = 128;

/**
 * The messageId of retry `attempt` in a chain. Deterministic, so when a crash re-runs the same step the twin it
 * schedules carries the same id and duplicate detection drops it; distinct per attempt, so duplicate detection
 * never eats the retry itself.
 */
export function retryMessageId(chainId: string, attempt: number): string {
  const readable = `${chainId}:retry:${attempt}`;
  if (readable.length <= maxMessageIdLength) return readable;
  return `${createHash("sha256").update(chainId).digest("hex")}:retry:${attempt}`;
}

/**
 * When settling itself fails the answer is always to log, never another settlement. `MessageLockLost`: the lock
 * lapsed first; the broker redelivers and the guard turns the redelivery into a no-op. Anything else
 * (`ServiceTimeout`: "may or may not have been settled", a closed link) ends the same way.
 */
export function onSettleFailure(code: string | undefined): { action: "log"; note: string } {
  if (code === "MessageLockLost") {
    return { action: "log", note: "lock lost before settling; the redelivery meets the guard and settles without Stripe" };
  }
  return { action: "log", note: "settling failed; if the broker redelivers, the guard makes it safe" };
}
