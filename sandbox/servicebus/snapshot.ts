import { applicationProperties, type MessageRecord } from "./message-record.js";

/** A message as `inspect()` shows it. */
export interface MessageSnapshot {
  messageId: string;
  sequenceNumber: number;
  /** JSON bodies are parsed; other data bodies stay Buffers; AMQP value and sequence bodies as decoded. */
  body: unknown;
  /** Times the broker has delivered it (Azure's DeliveryCount); the SDK's `deliveryCount` on a delivery is this - 1. */
  deliveryCount: number;
  applicationProperties: Record<string, unknown>;
  enqueuedTime: Date;
  lockedUntil?: Date;
  scheduledEnqueueTime?: Date;
  expiresAt?: Date;
  deadLetterReason?: string;
  deadLetterDescription?: string;
  deadLetterSource?: string;
}

/** Every message of a queue by where it is. Each list is in sequence-number order. */
export interface QueueSnapshot {
  queue: string;
  /** Receive links attached to the queue (not its dead-letter subqueue) right now. */
  receivers: number;
  /** Waiting for a receiver. */
  active: MessageSnapshot[];
  /** Delivered under peek-lock and not yet settled (including locked deferred messages). */
  locked: MessageSnapshot[];
  scheduled: MessageSnapshot[];
  /** Deferred and not currently locked. */
  deferred: MessageSnapshot[];
  /** Everything in the dead-letter subqueue, whatever its state there. */
  deadLettered: MessageSnapshot[];
}

/** A queue in numbers: messages by where they are (as in QueueSnapshot), and deliveries counted by the broker. */
export interface QueueCounts {
  active: number;
  locked: number;
  scheduled: number;
  deferred: number;
  deadLettered: number;
  /** Deliveries from the queue so far, redeliveries included (every message's DeliveryCount, summed, ever). */
  deliveries: number;
  /** The same for its dead-letter subqueue. */
  deadLetterDeliveries: number;
}

interface BodySection {
  typecode: number;
  content: unknown;
  multiple?: boolean;
}

function isSection(body: unknown): body is BodySection {
  return typeof body === "object" && body !== null && "typecode" in body && "content" in body;
}

function decodeData(content: unknown): unknown {
  if (!Buffer.isBuffer(content)) return content;
  try {
    return JSON.parse(content.toString("utf8")) as unknown;
  } catch {
    return content;
  }
}

/** The body the way the SDK's default transformer would hand it to a handler. */
export function decodeBody(body: unknown): unknown {
  if (!isSection(body)) return body;
  if (body.typecode === 0x75) {
    return body.multiple && Array.isArray(body.content) ? body.content.map(decodeData) : decodeData(body.content);
  }
  return body.content;
}

export function snapshotOf(record: MessageRecord): MessageSnapshot {
  const properties = applicationProperties(record);
  const snapshot: MessageSnapshot = {
    messageId: record.messageId,
    sequenceNumber: record.sequenceNumber,
    body: decodeBody(record.message.body),
    deliveryCount: record.deliveries,
    applicationProperties: { ...properties },
    enqueuedTime: new Date(record.enqueuedAt),
  };
  if (record.lock) snapshot.lockedUntil = new Date(record.lock.lockedUntil);
  if (record.scheduledFor !== undefined && record.state === "scheduled") {
    snapshot.scheduledEnqueueTime = new Date(record.scheduledFor);
  }
  if (record.expiresAt !== undefined) snapshot.expiresAt = new Date(record.expiresAt);
  if (typeof properties.DeadLetterReason === "string") snapshot.deadLetterReason = properties.DeadLetterReason;
  if (typeof properties.DeadLetterErrorDescription === "string") {
    snapshot.deadLetterDescription = properties.DeadLetterErrorDescription;
  }
  if (record.deadLetterSource !== undefined) snapshot.deadLetterSource = record.deadLetterSource;
  return snapshot;
}
