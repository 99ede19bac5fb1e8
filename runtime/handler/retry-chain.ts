// A scheduled retry carries its place in the chain in application properties: the attempt number and the chain id
// its deterministic messageId derives from. The DLQ tool drops both on resubmission, so a resubmitted event starts
// a fresh chain (new ids, fresh attempt budget) instead of colliding with the old chain's ids.
import type { ServiceBusMessage, ServiceBusReceivedMessage } from "@azure/service-bus";
import { deadlineProperty, waitsProperty } from "./event-deadline.js";

export const attemptProperty = "chargeguard-attempt";
export const chainProperty = "chargeguard-chain";
export const retryReasonProperty = "chargeguard-retry-reason";
export const resubmittedFromProperty = "chargeguard-resubmitted-from";

/** Properties that belong to one retry chain; a resubmission must not carry them over. */
export const retryChainProperties = [attemptProperty, chainProperty, retryReasonProperty, waitsProperty, deadlineProperty] as const;

type Properties = ServiceBusReceivedMessage["applicationProperties"];

/** The attempt this delivery is (1 unless it is a scheduled retry). */
export function attemptOf(properties: Properties): number {
  const value = properties?.[attemptProperty];
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1 ? value : 1;
}

/**
 * The chain this delivery belongs to: carried by retries; for a first delivery its messageId, plus where it was
 * resubmitted from (each resubmission is a DLQ entry of its own), so a resubmitted event gets a new chain.
 */
export function chainIdOf(message: Pick<ServiceBusReceivedMessage, "messageId" | "applicationProperties" | "sequenceNumber">): string {
  const carried = message.applicationProperties?.[chainProperty];
  if (typeof carried === "string" && carried.length > 0) return carried;
  const id = message.messageId === undefined ? `seq-${String(message.sequenceNumber)}` : String(message.messageId);
  const resubmittedFrom = message.applicationProperties?.[resubmittedFromProperty];
  return typeof resubmittedFrom === "string" ? `${id}@${resubmittedFrom}` : id;
}

/** The same event again, as retry `attempt` of `chainId`, to be scheduled. */
export function retryMessage(
  original: ServiceBusReceivedMessage,
  retry: { messageId: string; attempt: number; chainId: string; reason: string; waits?: number; deadline?: number; now?: number },
): ServiceBusMessage {
  const finite = retry.deadline !== undefined && Number.isFinite(retry.deadline);
  return {
    body: original.body,
    messageId: retry.messageId,
    // Expires a minute after the event's deadline: the consumer meets it past the deadline and dead-letters it with
    // its reason (EventDeadlineExceeded); the broker's expiry is the backstop should no consumer run by then.
    ...(finite ? { timeToLive: Math.max(1_000, (retry.deadline as number) - (retry.now ?? Date.now())) + 60_000 } : {}),
    contentType: original.contentType,
    correlationId: original.correlationId,
    subject: original.subject,
    applicationProperties: {
      ...withoutBrokerProperties(original.applicationProperties),
      [attemptProperty]: retry.attempt,
      [chainProperty]: retry.chainId,
      [retryReasonProperty]: retry.reason.slice(0, 500),
      ...(retry.waits === undefined ? {} : { [waitsProperty]: retry.waits }),
      ...(finite ? { [deadlineProperty]: retry.deadline } : {}),
    },
  };
}

/** Application properties a broker adds on dead-lettering (`DeadLetterReason`, ...). */
export function withoutBrokerProperties(properties: Properties): NonNullable<ServiceBusMessage["applicationProperties"]> {
  const kept: NonNullable<ServiceBusMessage["applicationProperties"]> = {};
  for (const [name, value] of Object.entries(properties ?? {})) {
    if (!name.startsWith("DeadLetter")) kept[name] = value;
  }
  return kept;
}
