// Dead-letter tools. A resubmission is the same event (body, content type, correlation id, application properties)
// sent as a NEW message under a fresh, deterministic messageId: the queues BillingQueue deploys detect duplicates by
// messageId, and Service Bus accepts a send whose id it saw inside the window and then silently drops it, so a kept
// id would lose the event. The guard dedupes by the event's business key, not the messageId, so a new id is safe;
// it is derived from the dead-letter entry, so re-running after a crash sends the same id and the window drops the
// second copy. What the broker added on dead-lettering and the old retry chain's bookkeeping are dropped (a
// resubmission starts a fresh retry budget); where it came from is recorded. The dead-letter copy is completed
// only after its replacement was sent: a crash in between duplicates, never loses, and the guard turns the
// duplicate into a no-op. Needs Listen and Send on the queue (operatorQueueRights), never Manage.
import { createHash } from "node:crypto";
import type { ServiceBusClient, ServiceBusClientOptions, ServiceBusMessage, ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
import { errorMessage } from "../core/describe-error.js";
import { resubmittedFromProperty, retryChainProperties, withoutBrokerProperties } from "../handler/retry-chain.js";
import { loadServiceBus } from "../sdk/load-service-bus.js";
import { serviceBusErrorIn } from "../sdk/service-bus-error.js";
import { connectServiceBus } from "../servicebus/servicebus-connection.js";
import { processEnvironment } from "../core/environment.js";

export interface DeadLetterOptions {
  /** Absent: SERVICEBUS_FULLY_QUALIFIED_NAMESPACE with DefaultAzureCredential. */
  connectionString?: string;
  queue: string;
  /** At most this many messages (that pass the filter); default 100. */
  max?: number;
  /** Only dead letters that match every given field. */
  filter?: DeadLetterFilter;
}

/** Which dead letters to act on: each given field must match (reasons and ids: any of the list). */
export interface DeadLetterFilter {
  /** DeadLetterReason, exactly (e.g. "MaxDeliveryCountExceeded"). */
  reasons?: string[];
  /** The dead-lettered message's messageId, exactly. */
  messageIds?: string[];
  /** Enqueued at or after this instant (the message's EnqueuedTimeUtc). */
  since?: Date;
}

export interface DeadLetterSummary {
  messageId: string | undefined;
  sequenceNumber: string;
  deadLetterReason: string | undefined;
  deadLetterErrorDescription: string | undefined;
  enqueuedTimeUtc: string | undefined;
  body: unknown;
}

/** Why a resubmission goes out under a new messageId; printed by `chargeguard dlq resubmit`. */
export const resubmitIdReason =
  "new id: a re-sent id inside the queue's duplicate-detection window is silently dropped; the guard dedupes by the event's business key";

export interface ResubmittedMessage extends DeadLetterSummary {
  /** The messageId its replacement was sent with (in a dry run: would be sent with). */
  sentAs: string;
  /** Why it was sent under that id. */
  why: string;
  /** Set when the replacement was sent but completing the dead-letter copy failed: the copy stays, nothing is lost. */
  completeFailed?: string;
}

export interface ResubmitReport {
  queue: string;
  dryRun: boolean;
  /** Moved (or, in a dry run, would move) to the queue, in order, with the messageId each was sent with. */
  moved: ResubmittedMessage[];
  /** Dead letters left in place because the filter did not match them. */
  skipped: number;
  /** Set when a send failed: that message stays in the dead-letter queue and the run stops. `code`: Service Bus's error code (e.g. UnauthorizedAccess: the connection lacks Send). */
  failure?: { messageId: string | undefined; error: string; code?: string };
}

export async function peekDeadLetters(options: DeadLetterOptions): Promise<DeadLetterSummary[]> {
  const max = limitOf(options.max);
  const matches = matcherOf(options.filter);
  const client = await connect(options);
  try {
    const receiver = client.createReceiver(options.queue, { subQueueType: "deadLetter" });
    const found: DeadLetterSummary[] = [];
    while (found.length < max) {
      const batch = await receiver.peekMessages(100);
      if (batch.length === 0) break;
      for (const message of batch) if (found.length < max && matches(message)) found.push(summarize(message));
    }
    await receiver.close();
    return found;
  } finally {
    await client.close();
  }
}

export interface ResubmitOptions extends DeadLetterOptions {
  dryRun?: boolean;
  maxWaitTimeInMs?: number;
}

export async function resubmitDeadLetters(options: ResubmitOptions): Promise<ResubmitReport> {
  if (options.dryRun) {
    const found = await peekDeadLetters(options);
    const total = await countDeadLetters(options);
    return {
      queue: options.queue,
      dryRun: true,
      moved: found.map((message) => ({ ...message, sentAs: resubmitMessageId(message), why: resubmitIdReason })),
      skipped: total - found.length,
    };
  }
  const max = limitOf(options.max);
  const matches = matcherOf(options.filter);
  const client = await connect(options);
  const report: ResubmitReport = { queue: options.queue, dryRun: false, moved: [], skipped: 0 };
  // Dead letters the filter leaves alone stay locked by us until the end, so this run does not see them again;
  // then they are abandoned (the dead-letter subqueue never dead-letters, so that costs nothing).
  const leftAlone = new Map<string, ServiceBusReceivedMessage>();
  try {
    const receiver = client.createReceiver(options.queue, { subQueueType: "deadLetter", receiveMode: "peekLock" });
    const sender = client.createSender(options.queue);
    try {
      while (report.moved.length < max) {
        const batch = await receiver.receiveMessages(50, { maxWaitTimeInMs: options.maxWaitTimeInMs ?? 2_000 });
        if (batch.length === 0) break;
        let fresh = 0;
        for (const message of batch) {
          const sequence = String(message.sequenceNumber);
          if (report.moved.length >= max || !matches(message)) {
            if (!leftAlone.has(sequence)) fresh++;
            leftAlone.set(sequence, message);
            continue;
          }
          fresh++;
          const copy = resubmission(message, options.queue);
          try {
            await sender.sendMessages(copy);
          } catch (error) {
            report.failure = { messageId: idOf(message), error: errorMessage(error), ...codeOf(error) };
            // This and the rest of the batch stay in the DLQ (locked until their locks lapse): nothing is lost.
            return report;
          }
          const moved: ResubmittedMessage = { ...summarize(message), sentAs: String(copy.messageId), why: resubmitIdReason };
          try {
            await receiver.completeMessage(message);
          } catch (error) {
            // The replacement is on the queue; the copy stays in the DLQ. A re-run sends the same derived id, which
            // the window drops (or, after it, the guard dedupes).
            moved.completeFailed = errorMessage(error);
          }
          report.moved.push(moved);
        }
        // Only messages this run already left alone came back (their locks lapsed): nothing new to look at.
        if (fresh === 0) break;
      }
      return report;
    } finally {
      report.skipped = leftAlone.size;
      await abandonAll(receiver, leftAlone.values());
      await sender.close();
      await receiver.close();
    }
  } finally {
    await client.close();
  }
}

/**
 * The messageId a dead letter is resubmitted under: `<messageId>:resubmit:<dead-letter sequence number>`, hashed
 * when longer than Service Bus's 128 characters. Deterministic per dead-letter entry, never the kept id.
 */
export function resubmitMessageId(message: Pick<DeadLetterSummary, "messageId" | "sequenceNumber">): string {
  const id = message.messageId ?? "no-id";
  const readable = `${id}:resubmit:${message.sequenceNumber}`;
  if (readable.length <= maxMessageIdLength) return readable;
  return `${createHash("sha256").update(id).digest("hex")}:resubmit:${message.sequenceNumber}`;
}

const maxMessageIdLength = 128;

/**
 * An operator at a terminal: retry transient faults briefly. The SDK's defaults (3 retries 30 s apart) also retry
 * UnauthorizedAccess, so a connection without the rights would take 90 s to say so.
 */
async function connect(options: DeadLetterOptions): Promise<ServiceBusClient> {
  const { RetryMode } = await loadServiceBus();
  const operatorClientOptions: ServiceBusClientOptions = {
    retryOptions: { maxRetries: 2, retryDelayInMs: 500, maxRetryDelayInMs: 4_000, mode: RetryMode.Exponential },
  };
  return connectServiceBus(options.connectionString, processEnvironment(), operatorClientOptions);
}

/** The message to send back to `queue` for a dead-lettered one. */
export function resubmission(message: ServiceBusReceivedMessage, queue: string): ServiceBusMessage {
  const properties = withoutBrokerProperties(message.applicationProperties);
  for (const name of retryChainProperties) delete properties[name];
  properties[resubmittedFromProperty] = `${queue}/$DeadLetterQueue#${String(message.sequenceNumber)}`;
  const copy: ServiceBusMessage = {
    body: message.body,
    applicationProperties: properties,
    messageId: resubmitMessageId({ messageId: idOf(message), sequenceNumber: String(message.sequenceNumber) }),
  };
  if (message.contentType !== undefined) copy.contentType = message.contentType;
  if (message.correlationId !== undefined) copy.correlationId = message.correlationId;
  if (message.subject !== undefined) copy.subject = message.subject;
  if (message.sessionId !== undefined) copy.sessionId = message.sessionId;
  if (message.partitionKey !== undefined) copy.partitionKey = message.partitionKey;
  return copy;
}

async function countDeadLetters(options: DeadLetterOptions): Promise<number> {
  return (await peekDeadLetters({ ...options, max: Number.MAX_SAFE_INTEGER, filter: {} })).length;
}

async function abandonAll(receiver: ServiceBusReceiver, messages: Iterable<ServiceBusReceivedMessage>): Promise<void> {
  for (const message of messages) {
    // A lapsed lock already released it: the message is back either way.
    await receiver.abandonMessage(message).catch(() => undefined);
  }
}

function matcherOf(filter: DeadLetterFilter | undefined): (message: ServiceBusReceivedMessage) => boolean {
  const reasons = filter?.reasons?.length ? new Set(filter.reasons) : undefined;
  const ids = filter?.messageIds?.length ? new Set(filter.messageIds) : undefined;
  const since = filter?.since?.getTime();
  return (message) =>
    (reasons === undefined || (message.deadLetterReason !== undefined && reasons.has(message.deadLetterReason))) &&
    (ids === undefined || (message.messageId !== undefined && ids.has(String(message.messageId)))) &&
    (since === undefined || (message.enqueuedTimeUtc !== undefined && message.enqueuedTimeUtc.getTime() >= since));
}

function summarize(message: ServiceBusReceivedMessage): DeadLetterSummary {
  return {
    messageId: idOf(message),
    sequenceNumber: String(message.sequenceNumber),
    deadLetterReason: message.deadLetterReason,
    deadLetterErrorDescription: message.deadLetterErrorDescription,
    enqueuedTimeUtc: message.enqueuedTimeUtc?.toISOString(),
    body: message.body,
  };
}

function idOf(message: ServiceBusReceivedMessage): string | undefined {
  return message.messageId === undefined ? undefined : String(message.messageId);
}

/** Service Bus's error code, also when the SDK wraps its errors in an AggregateError (a send over AMQP does). */
function codeOf(error: unknown): { code?: string } {
  const found = serviceBusErrorIn(error);
  return found ? { code: found.code } : {};
}

function limitOf(max: number | undefined): number {
  const value = max ?? 100;
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`max must be a positive integer, got ${max}`);
  return value;
}
