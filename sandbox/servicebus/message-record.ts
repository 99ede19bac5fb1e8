import type { Message } from "rhea";

/** Where a message is inside one entity (the queue or its dead-letter subqueue). */
export type RecordState = "scheduled" | "active" | "locked" | "deferred" | "removed";

/** One message held by the broker. The producer's AMQP message is kept as sent; broker annotations go on per delivery. */
export interface MessageRecord {
  readonly sequenceNumber: number;
  readonly messageId: string;
  readonly message: Message;
  enqueuedAt: number;
  expiresAt: number | undefined;
  /** Times the broker has delivered it (Azure's DeliveryCount). The JS SDK shows this minus one on each delivery. */
  deliveries: number;
  state: RecordState;
  /** Deferred messages stay deferred when a lock on them (receiveDeferredMessages) is released. */
  deferred: boolean;
  scheduledFor: number | undefined;
  lock: Lock | undefined;
  /** Set on dead-lettered copies: the entity they came from. */
  deadLetterSource: string | undefined;
  /**
   * Set on dead-lettered copies: the `deliveryCount` the SDK showed when the message was dead-lettered. Service Bus
   * reports it unchanged on every delivery from the dead-letter subqueue (abandons there included), as the Azure
   * SDK's own batchReceiver tests expect.
   */
  deadLetterDeliveryCount?: number;
  /** The sections that never change between deliveries, encoded once (see wire.ts); false: encode whole. */
  encodedTail?: Buffer | false;
}

export interface Lock {
  /** The lock token as the SDK prints it (RFC 4122 order). */
  readonly token: string;
  readonly record: MessageRecord;
  lockedUntil: number;
}

/** The AMQP header's `delivery_count` for this record's next delivery or peek (the SDK's `deliveryCount`). */
export function headerDeliveryCount(record: MessageRecord): number {
  return record.deadLetterDeliveryCount ?? record.deliveries;
}

export function applicationProperties(record: MessageRecord): Record<string, unknown> {
  return (record.message.application_properties as Record<string, unknown> | undefined) ?? {};
}

/** Adds or replaces application properties (abandon/defer/dead-letter `propertiesToModify`, dead-letter reasons). */
export function modifyApplicationProperties(record: MessageRecord, changes: Record<string, unknown> | undefined): void {
  if (!changes) return;
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return;
  record.message.application_properties = { ...applicationProperties(record), ...Object.fromEntries(entries) };
  record.encodedTail = undefined;
}
