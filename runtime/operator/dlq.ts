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
import type {
  ServiceBusClient,
  ServiceBusClientOptions,
  ServiceBusMessage,
  ServiceBusReceivedMessage,
  ServiceBusReceiver,
  ServiceBusSender,
} from "@azure/service-bus";
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
  /** Left in place because their reason cannot succeed when resent (permanentDeadLetterReasons), each with why. */
  refused: RefusedDeadLetter[];
  /** Dead letters left in place because the filter (or --max) did not take them. */
  skipped: number;
  /** Dead letters this run had itself sent that the consumers dead-lettered again: left in place, never re-sent. */
  returned: number;
  /** Per DeadLetterReason: how many moved and how many were refused. */
  byReason: Record<string, { moved: number; refused: number }>;
  /** Set when a send failed: that message stays in the dead-letter queue and the run stops. `code`: Service Bus's error code (e.g. UnauthorizedAccess: the connection lacks Send). */
  failure?: { messageId: string | undefined; error: string; code?: string };
}

export interface RefusedDeadLetter extends DeadLetterSummary {
  /** Why resending it cannot succeed, and what to do instead. */
  why: string;
}

/**
 * Dead-letter reasons a resubmission cannot fix: the consumer refuses the same body again at once, so resending
 * only loops (each resend is a new dead letter, in production a new page). Left in place unless asked by name.
 */
export const permanentDeadLetterReasons: Readonly<Record<string, string>> = {
  BillingRecordMismatch:
    "its billing identity was already billed with other parameters: resent unchanged it is refused again; send a corrected event with its own identity, or refund and re-bill",
  InvalidEvent: "the consumer refused its body: resent unchanged it is refused again; fix it at the producer",
};

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
  /** Resend dead letters whose reason cannot succeed when resent (permanentDeadLetterReasons) too; default false. */
  resendPermanent?: boolean;
}

type Verdict = "move" | "refuse" | "skip" | "returned";

export async function resubmitDeadLetters(options: ResubmitOptions): Promise<ResubmitReport> {
  const report: ResubmitReport = { queue: options.queue, dryRun: options.dryRun ?? false, moved: [], refused: [], skipped: 0, returned: 0, byReason: {} };
  if (options.dryRun) return dryRun(options, report);
  const max = limitOf(options.max);
  const matches = matcherOf(options.filter);
  const client = await connect(options);
  // What this run sent: when a consumer dead-letters it again, this run must not read it back and resend it (a
  // resubmission that loops until --max, each lap a new dead letter).
  const sent = new Set<string>();
  const verdictOf = (message: ServiceBusReceivedMessage): Verdict => {
    if (message.messageId !== undefined && sent.has(String(message.messageId))) return "returned";
    if (report.moved.length >= max || !matches(message)) return "skip";
    return refusalOf(message, options) === undefined ? "move" : "refuse";
  };
  // Dead letters not moved stay locked by us until the end, so this run does not see them again; then they are
  // abandoned (the dead-letter subqueue never dead-letters, so that costs nothing).
  const leftAlone = new Map<string, ServiceBusReceivedMessage>();
  try {
    const receiver = client.createReceiver(options.queue, { subQueueType: "deadLetter", receiveMode: "peekLock" });
    const sender = client.createSender(options.queue);
    try {
      while (report.moved.length < max) {
        const batch = await receiver.receiveMessages(50, { maxWaitTimeInMs: options.maxWaitTimeInMs ?? 2_000 });
        // Only messages this run already left alone came back (their locks lapsed): nothing new to look at.
        const fresh = batch.filter((message) => !leftAlone.has(String(message.sequenceNumber)));
        if (fresh.length === 0) break;
        for (const message of fresh) {
          const verdict = verdictOf(message);
          if (verdict !== "move") {
            leftAlone.set(String(message.sequenceNumber), message);
            countLeftAlone(report, verdict, message, options);
            continue;
          }
          const copy = resubmission(message, options.queue);
          if (!(await moveOne(receiver, sender, message, copy, report))) return report;
          sent.add(String(copy.messageId));
        }
      }
      return report;
    } finally {
      await abandonAll(receiver, leftAlone.values());
      await sender.close();
      await receiver.close();
    }
  } finally {
    await client.close();
  }
}

/** Why resending this dead letter cannot succeed, unless the operator asked for such reasons by name. */
function refusalOf(message: { deadLetterReason?: string | undefined }, options: ResubmitOptions): string | undefined {
  if (options.resendPermanent || message.deadLetterReason === undefined) return undefined;
  return Object.hasOwn(permanentDeadLetterReasons, message.deadLetterReason) ? permanentDeadLetterReasons[message.deadLetterReason] : undefined;
}

function reasonCount(report: ResubmitReport, reason: string | undefined): { moved: number; refused: number } {
  const key = reason ?? "(no reason)";
  report.byReason[key] ??= { moved: 0, refused: 0 };
  return report.byReason[key];
}

function countLeftAlone(report: ResubmitReport, verdict: Exclude<Verdict, "move">, message: ServiceBusReceivedMessage, options: ResubmitOptions): void {
  if (verdict === "skip") report.skipped++;
  else if (verdict === "returned") report.returned++;
  else {
    const summary = summarize(message);
    report.refused.push({ ...summary, why: refusalOf(summary, options) ?? "" });
    reasonCount(report, summary.deadLetterReason).refused++;
  }
}

/** Sends the replacement, then completes the dead-letter copy; false when the send failed (the run stops). */
async function moveOne(
  receiver: ServiceBusReceiver,
  sender: ServiceBusSender,
  message: ServiceBusReceivedMessage,
  copy: ServiceBusMessage,
  report: ResubmitReport,
): Promise<boolean> {
  try {
    await sender.sendMessages(copy);
  } catch (error) {
    report.failure = { messageId: idOf(message), error: errorMessage(error), ...codeOf(error) };
    // This and the rest of the batch stay in the DLQ (locked until their locks lapse): nothing is lost.
    return false;
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
  reasonCount(report, moved.deadLetterReason).moved++;
  return true;
}

/** What a run would do, from a peek: nothing is taken or sent. */
async function dryRun(options: ResubmitOptions, report: ResubmitReport): Promise<ResubmitReport> {
  const found = await peekDeadLetters(options);
  report.skipped = (await countDeadLetters(options)) - found.length;
  for (const message of found) {
    const why = refusalOf(message, options);
    if (why === undefined) {
      report.moved.push({ ...message, sentAs: resubmitMessageId(message), why: resubmitIdReason });
      reasonCount(report, message.deadLetterReason).moved++;
    } else {
      report.refused.push({ ...message, why });
      reasonCount(report, message.deadLetterReason).refused++;
    }
  }
  return report;
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
