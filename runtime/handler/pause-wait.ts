// A message a pause meets is kept as a wait, never abandoned: Stripe refused the key while billing it, or intake was
// pausing as it was delivered. An abandon makes it visible again at once with its delivery count one higher; a pause
// met by both replicas, then another, then another (a key flapping, a key that may read but not write) handed one
// meter event its ten deliveries and the broker dead-lettered it MaxDeliveryCountExceeded, though nothing was wrong
// with it. A wait is a copy scheduled after the wait backoff, the original completed (settlement-policy.ts): no
// delivery spent, no attempt spent; past the event's deadline it is dead-lettered as any wait is.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { settleWait } from "../resilience/wait-policy.js";
import { deadlineOf, waitsOf } from "./event-deadline.js";
import type { MessageSettler, RetryScheduler } from "./handler-deps.js";
import { attemptOf, chainIdOf } from "./retry-chain.js";
import { settleMessage } from "./settle-message.js";

/**
 * Reschedules `message` as a wait for `what` (the wait backoff: 1 s doubling to 10 s, so a resumed fleet meets it
 * soon) and completes it; resolves whether both were done.
 */
export function keepAsWait(
  log: (line: string) => void,
  message: ServiceBusReceivedMessage,
  what: string,
  detail: string,
  receiver: MessageSettler,
  sender: RetryScheduler,
): Promise<boolean> {
  const chainId = chainIdOf(message);
  const deadline = deadlineOf(message);
  const info = { attempt: attemptOf(message.applicationProperties), chainId, idempotencyKey: chainId, waits: waitsOf(message.applicationProperties), deadline, now: Date.now() };
  const action = settleWait(what, detail, info);
  return settleMessage({ log }, { message, action, outcomeKind: what, chainId, who: `message ${String(message.messageId)}`, deadline }, receiver, sender);
}
