// Dead-letter tools. Resubmitting keeps the messageId, body, content type, correlation id and application
// properties (a resubmission is the same event, not a new one), drops what the broker added on dead-lettering
// and the old retry chain's bookkeeping (a resubmission starts a fresh retry budget), and records where it came
// from. The DLQ copy is completed only after the send succeeded: a crash in between duplicates, never loses, and
// the guard turns the duplicate into a no-op.
import type { ServiceBusMessage, ServiceBusReceivedMessage } from "@azure/service-bus";
import { resubmittedFromProperty, retryChainProperties, withoutBrokerProperties } from "./retry-chain.js";
import { connectServiceBus } from "./servicebus-connection.js";

export interface DeadLetterOptions {
  /** Absent: SERVICEBUS_FULLY_QUALIFIED_NAMESPACE with DefaultAzureCredential. */
  connectionString?: string;
  queue: string;
  /** At most this many messages; default 100. */
  max?: number;
}

export interface DeadLetterSummary {
  messageId: string | undefined;
  sequenceNumber: string;
  deadLetterReason: string | undefined;
  deadLetterErrorDescription: string | undefined;
  enqueuedTimeUtc: string | undefined;
  body: unknown;
}

export interface ResubmitReport {
  queue: string;
  dryRun: boolean;
  /** Moved (or, in a dry run, would move) to the queue, in order, with the messageId each was sent with. */
  moved: (DeadLetterSummary & { sentAs?: string })[];
  /** Set when a send failed: that message stays in the dead-letter queue and the run stops. */
  failure?: { messageId: string | undefined; error: string };
}

export async function peekDeadLetters(options: DeadLetterOptions): Promise<DeadLetterSummary[]> {
  const max = limitOf(options.max);
  const client = connectServiceBus(options.connectionString);
  try {
    const receiver = client.createReceiver(options.queue, { subQueueType: "deadLetter" });
    const found: DeadLetterSummary[] = [];
    while (found.length < max) {
      const batch = await receiver.peekMessages(Math.min(max - found.length, 100));
      if (batch.length === 0) break;
      found.push(...batch.map(summarize));
    }
    await receiver.close();
    return found;
  } finally {
    await client.close();
  }
}

export interface ResubmitOptions extends DeadLetterOptions {
  dryRun?: boolean;
  /**
   * "keep" (default): the resubmission carries the original messageId. "derive": `<messageId>:resubmit:<DLQ
   * sequence number>`, for queues with duplicate detection when the original was sent within the window: the
   * broker silently drops a kept id as a duplicate. Derived ids are deterministic, so re-running after a crash
   * still deduplicates. (chargeguard's consumer keys on the event, not the messageId, so either is safe for it.)
   */
  messageId?: "keep" | "derive";
  maxWaitTimeInMs?: number;
}

export async function resubmitDeadLetters(options: ResubmitOptions): Promise<ResubmitReport> {
  if (options.dryRun) {
    return { queue: options.queue, dryRun: true, moved: await peekDeadLetters(options) };
  }
  const max = limitOf(options.max);
  const client = connectServiceBus(options.connectionString);
  const report: ResubmitReport = { queue: options.queue, dryRun: false, moved: [] };
  try {
    const receiver = client.createReceiver(options.queue, { subQueueType: "deadLetter", receiveMode: "peekLock" });
    const sender = client.createSender(options.queue);
    try {
      while (report.moved.length < max) {
        const batch = await receiver.receiveMessages(Math.min(max - report.moved.length, 50), { maxWaitTimeInMs: options.maxWaitTimeInMs ?? 2_000 });
        if (batch.length === 0) break;
        for (const message of batch) {
          const copy = resubmission(message, options.queue, options.messageId ?? "keep");
          try {
            await sender.sendMessages(copy);
          } catch (error) {
            report.failure = { messageId: idOf(message), error: error instanceof Error ? error.message : String(error) };
            // This and the rest of the batch stay in the DLQ (locked until their locks lapse): nothing is lost.
            return report;
          }
          await receiver.completeMessage(message);
          report.moved.push({ ...summarize(message), ...(copy.messageId === undefined ? {} : { sentAs: String(copy.messageId) }) });
        }
      }
      return report;
    } finally {
      await sender.close();
      await receiver.close();
    }
  } finally {
    await client.close();
  }
}

/** The message to send back to `queue` for a dead-lettered one. */
export function resubmission(message: ServiceBusReceivedMessage, queue: string, messageId: "keep" | "derive" = "keep"): ServiceBusMessage {
  const properties = withoutBrokerProperties(message.applicationProperties);
  for (const name of retryChainProperties) delete properties[name];
  properties[resubmittedFromProperty] = `${queue}/$DeadLetterQueue#${String(message.sequenceNumber)}`;
  const copy: ServiceBusMessage = { body: message.body, applicationProperties: properties };
  if (message.messageId !== undefined) {
    copy.messageId = messageId === "keep" ? message.messageId : `${String(message.messageId)}:resubmit:${String(message.sequenceNumber)}`.slice(-128);
  }
  if (message.contentType !== undefined) copy.contentType = message.contentType;
  if (message.correlationId !== undefined) copy.correlationId = message.correlationId;
  if (message.subject !== undefined) copy.subject = message.subject;
  if (message.sessionId !== undefined) copy.sessionId = message.sessionId;
  if (message.partitionKey !== undefined) copy.partitionKey = message.partitionKey;
  return copy;
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

function limitOf(max: number | undefined): number {
  const value = max ?? 100;
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`max must be a positive integer, got ${max}`);
  return value;
}
