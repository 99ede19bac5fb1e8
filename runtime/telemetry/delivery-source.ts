// Why a delivery exists, told from the message alone: the AMQP delivery count (prior deliveries: 0 the first time)
// says the broker redelivered it; our retry chain's attempt property says it is a scheduled retry; the DLQ tool's
// property says an operator resubmitted it. A first delivery with none of these is `other`.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { waitsOf } from "../handler/event-deadline.js";
import { attemptOf, resubmittedFromProperty } from "../handler/retry-chain.js";
import type { DuplicateSource } from "./metric-names.js";

export function deliverySource(message: Pick<ServiceBusReceivedMessage, "deliveryCount" | "applicationProperties">): DuplicateSource {
  if ((message.deliveryCount ?? 0) >= 1) return "redelivery";
  // A wait (a dependency throttled or down: resilience/) is a scheduled retry too, under the same attempt number.
  if (attemptOf(message.applicationProperties) > 1 || waitsOf(message.applicationProperties) > 0) return "retry";
  if (typeof message.applicationProperties?.[resubmittedFromProperty] === "string") return "resubmission";
  return "other";
}
