import { consequenceOf } from "../utils/consequence.js";

/**
 * The scan's key findings worded as ESLint words them: the call by name and what its repeat does (`Refund.create()`
 * refunds again, `client.payouts.create()` pays out again), and the unstable source by name (`uuid.uuid4()`,
 * `getMessageId()`), read from the finding's source lines. The YAML rules carry one generic message each; what a
 * line does not show (a key in a variable set elsewhere) keeps the generic words.
 */
const MONEY_CALL = /([A-Za-z_$][\w$]*(?:\(\))?(?:\s*\.\s*[A-Za-z_$][\w$]*(?:\(\))?)*?)\s*\.\s*(create_reversal|createReversal|add_lines|addLines|create)(?:_async)?\s*\(/;

/** Unstable sources by how each language spells them, most specific first. */
const SOURCES: readonly RegExp[] = [
  /\b(?:uuid\.)?uuid[14]\(\)|\bUUID\.randomUUID\(\)/,
  /\btime\.time(?:_ns)?\(\)|\bSystem\.currentTimeMillis\(\)|\b(?:datetime\.)*(?:now|utcnow)\([^)]*\)|\b(?:Instant|LocalDateTime|OffsetDateTime|ZonedDateTime)\.now\(\)/,
  /\bget(?:MessageId|LockToken|SequenceNumber|DeliveryTag|AckId|JMSMessageID)\(\)|\b(?:offset|partition|messageId|receiptHandle)\(\)/,
  /\.(?:message_id|lock_token|sequence_number|enqueued_time_utc|delivery_count|delivery_tag|ack_id)\b|\["(?:MessageId|ReceiptHandle)"\]/,
  /\b(?:random|secrets)\.\w+\([^)]*\)/,
];

const GENERIC_SOURCE = "a queue delivery's metadata (Service Bus or another broker's), randomness or a clock";

export function withCallWording(message: string, lines: string): string {
  let worded = message;
  const call = MONEY_CALL.exec(lines);
  if (call && worded.startsWith("This Stripe call moves money")) {
    const callee = call[1]!.replace(/\s+/g, "");
    const resource = callee.split(".").pop()!;
    worded = worded.replace("This Stripe call moves money", `${callee}.${call[2]}() moves money`).replace("charges again", consequenceOf(resource, call[2]!));
  }
  if (worded.includes(GENERIC_SOURCE)) {
    const source = SOURCES.map((pattern) => pattern.exec(lines)?.[0]).find((found) => found !== undefined);
    if (source) worded = worded.replace(GENERIC_SOURCE, `${source.replace(/^\./, "")} (${GENERIC_SOURCE})`);
    if (call && worded.startsWith("This Stripe idempotency key")) {
      const callee = call[1]!.replace(/\s+/g, "");
      worded = worded.replace("This Stripe idempotency key", `This idempotency key of ${callee}.${call[2]}()`).replace("Stripe then charges again", `Stripe then ${consequenceOf(callee.split(".").pop()!, call[2]!)}`);
    }
  }
  return worded;
}
