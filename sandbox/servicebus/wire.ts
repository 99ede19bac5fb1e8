import rhea, { type Message } from "rhea";
import type { MessageRecord } from "./message-record.js";

/** The message format of `sendMessages([...])` and batches: one data section per encoded message. */
export const batchMessageFormat = 0x80013700;

/** Annotation value of `x-opt-message-state`. */
export const messageState = { active: 0, deferred: 1, scheduled: 2 } as const;

export function uuidBytes(token: string): Buffer {
  return Buffer.from(token.replace(/-/g, ""), "hex");
}

export function uuidText(bytes: Buffer): string {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A lock token as a delivery tag: .NET `Guid.ToByteArray()` order, i.e. the first three groups byte-swapped.
 * The SDK swaps them back before printing `lockToken`.
 */
export function deliveryTag(token: string): Buffer {
  const b = uuidBytes(token);
  return Buffer.from([b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], ...b.subarray(8)] as number[]);
}

/** Sequence numbers arrive as AMQP longs: numbers when small, 8-byte big-endian buffers otherwise. */
export function toSequenceNumber(value: unknown): number {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (Buffer.isBuffer(value) && value.length === 8) return Number(value.readBigInt64BE(0));
  throw new TypeError(`Expected a sequence number (AMQP long), got ${typeof value}`);
}

/** Lock tokens arrive over $management as AMQP uuids (RFC order). */
export function toLockToken(value: unknown): string {
  if (Buffer.isBuffer(value) && value.length === 16) return uuidText(value);
  if (typeof value === "string" && /^[0-9a-f-]{36}$/i.test(value)) return value.toLowerCase();
  throw new TypeError("Expected a lock token (AMQP uuid)");
}

/**
 * The messages inside one incoming transfer: a single message (format 0, already decoded by rhea), or a batch
 * envelope whose data sections each hold one encoded message.
 */
export function unpackTransfer(payload: Message | Buffer, format: number | undefined): Message[] {
  if (!format) return [payload as Message];
  if (format !== batchMessageFormat || !Buffer.isBuffer(payload)) {
    throw new TypeError(`Unsupported message format 0x${(format >>> 0).toString(16)}`);
  }
  const envelope = rhea.message.decode(payload) as { body?: { typecode?: number; content?: unknown; multiple?: boolean } };
  const body = envelope.body;
  if (!body || body.typecode !== 0x75) throw new TypeError("A batch must carry data sections");
  const sections = body.multiple ? (body.content as unknown[]) : [body.content];
  return sections.map((section) => {
    if (!Buffer.isBuffer(section)) throw new TypeError("A batch data section must hold an encoded message");
    return decodeMessage(section);
  });
}

export function decodeMessage(encoded: Buffer): Message {
  return rhea.message.decode(encoded) as unknown as Message;
}

export interface DeliveryView {
  deliveryCount: number;
  lockedUntil?: number;
  state?: number;
  /**
   * A lock held over $management (a deferred message received by sequence number): its token travels inside the
   * message as the delivery annotation `x-opt-lock-token`, where Python's SDK reads it (it has no delivery tag).
   */
  lockToken?: string;
}

const headerFields = new Set(["durable", "priority", "ttl", "first_acquirer", "delivery_count"]);
const annotationFields = new Set(["message_annotations", "delivery_annotations"]);
/** rhea always writes a header and a properties section, and a body section even when there is no body. */
const emptyHeader = Buffer.from([0x00, 0x53, 0x70, 0x45]);
const emptyPropertiesAndNullBody = Buffer.from([0x00, 0x53, 0x73, 0x45, 0x00, 0x53, 0x77, 0x40]);

/**
 * The message as a receiver gets it: the producer's message plus the broker's annotations. Only the header and the
 * annotations change between deliveries, so the rest (properties, application properties, body) is encoded once
 * per record and reused; the two parts are plain concatenations of AMQP sections.
 */
export function encodeForDelivery(record: MessageRecord, view: DeliveryView): Buffer {
  const head: Record<string, unknown> = { delivery_count: view.deliveryCount, message_annotations: annotationsFor(record, view) };
  if (view.lockToken !== undefined) {
    head.delivery_annotations = { "x-opt-lock-token": rhea.types.wrap_uuid(uuidBytes(view.lockToken)) };
  }
  for (const field of headerFields) {
    const value = (record.message as unknown as Record<string, unknown>)[field];
    if (value !== undefined && field !== "delivery_count") head[field] = value;
  }
  const encodedHead = rhea.message.encode(head);
  const tail = (record.encodedTail ??= encodeTail(record.message));
  if (!tail || !encodedHead.subarray(encodedHead.length - emptyPropertiesAndNullBody.length).equals(emptyPropertiesAndNullBody)) {
    return rhea.message.encode({ ...head, ...withoutHeaderOrAnnotations(record.message) });
  }
  return Buffer.concat([encodedHead.subarray(0, encodedHead.length - emptyPropertiesAndNullBody.length), tail]);
}

/** Properties, application properties, body and footer, encoded; false when rhea's layout is not the expected one. */
function encodeTail(message: Message): Buffer | false {
  const encoded = rhea.message.encode(withoutHeaderOrAnnotations(message));
  return encoded.subarray(0, emptyHeader.length).equals(emptyHeader) ? encoded.subarray(emptyHeader.length) : false;
}

function withoutHeaderOrAnnotations(message: Message): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(message)) {
    if (!headerFields.has(field) && !annotationFields.has(field)) rest[field] = value;
  }
  return rest;
}

function annotationsFor(record: MessageRecord, view: DeliveryView): Record<string, unknown> {
  const annotations: Record<string, unknown> = {
    ...(record.message.message_annotations as Record<string, unknown> | undefined),
    "x-opt-sequence-number": rhea.types.wrap_long(record.sequenceNumber),
    "x-opt-enqueued-time": new Date(record.enqueuedAt),
  };
  if (view.lockedUntil !== undefined) annotations["x-opt-locked-until"] = new Date(view.lockedUntil);
  if (view.state !== undefined && view.state !== messageState.active) annotations["x-opt-message-state"] = view.state;
  if (record.deadLetterSource !== undefined) annotations["x-opt-deadletter-source"] = record.deadLetterSource;
  return annotations;
}

/**
 * `x-opt-message-state`: deferred while deferred; scheduled while waiting for its time and also once a scheduled
 * message is active and received (Service Bus keeps the state it was sent with); else active. A dead-lettered copy
 * starts over as active.
 */
export function recordState(record: MessageRecord): number {
  if (record.deferred) return messageState.deferred;
  if (record.state === "scheduled" || record.scheduledFor !== undefined) return messageState.scheduled;
  return messageState.active;
}
