// Service Bus's message size limit (Standard tier: 256 KB), announced on every send link's attach and enforced as the
// broker enforces it.
import rhea, { type Message } from "rhea";

/** The max-message-size a send link's attach announces. */
export const maxMessageSize = 262_144;

/**
 * The error Service Bus refuses a message over the limit with (a rejected outcome); undefined when it is not over.
 * Clients that check the size first (the JavaScript SDK, a Python batch) never send one; Python's azure-servicebus 7.8
 * sends a lone message unchecked and raises MessageSizeExceededError from this condition, as its own tests expect of
 * Service Bus. The size is the message re-encoded (a batch: its bytes as sent).
 */
export function oversizeError(payload: Message | Buffer, deliveryId: number): { condition: string; description: string } | undefined {
  const size = Buffer.isBuffer(payload) ? payload.length : rhea.message.encode(payload).length;
  if (size <= maxMessageSize) return undefined;
  return {
    condition: "amqp:link:message-size-exceeded",
    description: `The received message (delivery-id:${deliveryId}, size:${size} bytes) exceeds the limit (${maxMessageSize} bytes) currently allowed on the link.`,
  };
}
