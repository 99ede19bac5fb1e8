// The kit's scheduled retry as one call, for a consumer that settles its own messages: where its catch block would
// `abandonMessage()` after a Stripe call failed (redelivered at once, before Stripe settles, which
// eslint-plugin-chargeguard's no-abandon-on-stripe-error reports and whose suggestion writes this call instead).
// Not a second retry: the settlement table's unknown-outcome row (settlement-policy.ts) picks the backoff from the
// attempt counter the message carries, or the dead letter past the last attempt, and settleMessage schedules the
// copy (retry-chain.ts: body, application properties, attempt and chain) and completes the original, exactly as
// createBillingHandler does.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import type { MessageSettler, RetryScheduler } from "./handler-deps.js";
import { deadlineOf } from "./event-deadline.js";
import { attemptOf, chainIdOf } from "./retry-chain.js";
import { settleMessage } from "./settle-message.js";
import { defaultRetryPolicy, settle, type RetryPolicy, type SettlementAction } from "./settlement-policy.js";

export interface ScheduleRetryOptions {
  /** Why the outcome is unknown: the copy carries it (`chargeguard-retry-reason`), a dead letter names it. */
  reason?: string;
  /** The billing's stable idempotency key: seeds the backoff's jitter; default the retry chain's id. */
  idempotencyKey?: string;
  /** Attempts and backoff; default `defaultRetryPolicy` (8 attempts, 5 s doubling to 15 min). */
  policy?: RetryPolicy;
  /** Told what happened, and why a settlement failed; default silent (the answer's `settled` says it). */
  log?: (line: string) => void;
}

export interface ScheduledRetry {
  /**
   * `retry-later` (the copy's messageId, attempt and delay) or, once the message is its chain's last attempt,
   * `dead-letter` with reason RetryAttemptsExhausted.
   */
  action: Extract<SettlementAction, { action: "retry-later" | "dead-letter" }>;
  /**
   * False when a settlement call failed (logged): the copy was not scheduled, and the original is left to its lock
   * (redelivered once it lapses); or the copy was scheduled and completing the original failed (both come back).
   */
  settled: boolean;
}

export const defaultRetryReason = "a Stripe call failed; its outcome is unknown";

/**
 * Schedules a copy of `message` through `sender` (which must send to the queue `receiver` receives from) after the
 * policy's backoff for its attempt, then completes `message`. Never throws and never abandons. The copy keeps the
 * event's identity, so the retry charges with the same stable key: Stripe answers it with the first charge.
 */
export async function scheduleRetry(
  receiver: MessageSettler,
  sender: RetryScheduler,
  message: ServiceBusReceivedMessage,
  options: ScheduleRetryOptions = {},
): Promise<ScheduledRetry> {
  const chainId = chainIdOf(message);
  const attempt = attemptOf(message.applicationProperties);
  const detail = options.reason ?? defaultRetryReason;
  const info = { attempt, chainId, idempotencyKey: options.idempotencyKey ?? chainId };
  // An unknown outcome without a dependency fault: always a retry or, past the last attempt, a dead letter.
  const action = settle({ kind: "unknown", detail }, info, options.policy ?? defaultRetryPolicy) as ScheduledRetry["action"];
  const who = `message ${String(message.messageId)}`;
  const settlement = { message, action, outcomeKind: "unknown", chainId, who, deadline: deadlineOf(message) };
  const settled = await settleMessage({ log: options.log ?? (() => {}) }, settlement, receiver, sender);
  return { action, settled };
}
