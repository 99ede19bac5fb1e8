// What producers and operators do to the queue: the initial send of the workload, an operator's dead-letter
// resubmission with new messageIds, and the producer's nightly re-send of events that have no billing record.
import type { PGlite } from "@electric-sql/pglite";
import type { ServiceBusClient, ServiceBusMessage, ServiceBusSender } from "@azure/service-bus";
import type { CustomerDirectory } from "./customers.js";
import type { Workload } from "./workload.js";

export async function sendAll(sender: ServiceBusSender, messages: readonly ServiceBusMessage[]): Promise<void> {
  let batch = await sender.createMessageBatch();
  for (const message of messages) {
    if (batch.tryAddMessage(message)) continue;
    if (batch.count === 0) throw new Error(`message ${String(message.messageId)} does not fit in an empty batch`);
    await sender.sendMessages(batch);
    batch = await sender.createMessageBatch();
    if (!batch.tryAddMessage(message)) throw new Error(`message ${String(message.messageId)} does not fit in an empty batch`);
  }
  if (batch.count > 0) await sender.sendMessages(batch);
}

export function workloadMessages(workload: Workload, directory: CustomerDirectory): ServiceBusMessage[] {
  return workload.messages.map(({ messageId, body }) => ({ messageId, body: directory.bodyToStripe(body), contentType: "application/json" }));
}

const deadLetterProperties = new Set(["DeadLetterReason", "DeadLetterErrorDescription"]);

/**
 * Moves the messages dead-lettered so far back to the queue the way operators do with portal tools: same body and
 * properties, a new messageId. Consumers keep running meanwhile, so what they dead-letter again during the
 * resubmission (a malformed event) stays in the dead-letter queue. Returns how many it moved.
 */
export async function resubmitDeadLetters(options: {
  client: ServiceBusClient;
  queue: string;
  /** Sequence numbers in the dead-letter queue when the operator looked. */
  toMove: ReadonlySet<number>;
  newMessageId: () => string;
}): Promise<number> {
  const { client, queue, toMove, newMessageId } = options;
  // No auto-renewal: the harness's own renew-lock faults are for the consumers, not for the operator's tool.
  const receiver = client.createReceiver(queue, { subQueueType: "deadLetter", receiveMode: "peekLock", maxAutoLockRenewalDurationInMs: 0 });
  const sender = client.createSender(queue);
  const moved = new Set<number>();
  try {
    while (moved.size < toMove.size) {
      const received = await receiver.receiveMessages(50, { maxWaitTimeInMs: 500 });
      if (received.length === 0) break;
      const sequence = (message: (typeof received)[number]) => Number(message.sequenceNumber?.toString());
      // A copy whose complete lost its lock comes round again: complete it, do not send it twice.
      const fresh = received.filter((message) => toMove.has(sequence(message)) && !moved.has(sequence(message)));
      await sendAll(
        sender,
        fresh.map((message) => ({
          messageId: newMessageId(),
          body: message.body as unknown,
          contentType: message.contentType,
          applicationProperties: Object.fromEntries(
            Object.entries(message.applicationProperties ?? {}).filter(([name]) => !deadLetterProperties.has(name)),
          ),
        })),
      );
      for (const message of fresh) moved.add(sequence(message));
      await Promise.allSettled(
        received.map((message) => (toMove.has(sequence(message)) ? receiver.completeMessage(message) : receiver.abandonMessage(message))),
      );
    }
    return moved.size;
  } finally {
    await receiver.close();
    await sender.close();
  }
}

/**
 * The seed's nightly reconciliation of unbilled usage: every valid event without a `billing_records` row for its
 * (customer, period) is sent again with a new messageId. A contender without that table gets nothing re-sent.
 */
export async function resendUnrecorded(options: {
  sender: ServiceBusSender;
  database: PGlite;
  workload: Workload;
  directory: CustomerDirectory;
  newMessageId: () => string;
}): Promise<number> {
  let rows: { customer_id: string; billing_period: string }[];
  try {
    rows = (await options.database.query<{ customer_id: string; billing_period: string }>("SELECT customer_id, billing_period FROM billing_records")).rows;
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return 0; // no such table: this contender keeps no records
    throw error;
  }
  const recorded = new Set(rows.map((row) => `${row.customer_id}|${row.billing_period}`));
  const unrecorded = options.workload.events.filter(
    (event) => event.usage && !recorded.has(`${event.usage.customerId}|${event.usage.billingPeriod}`),
  );
  await sendAll(
    options.sender,
    unrecorded.map((event) => ({ messageId: options.newMessageId(), body: options.directory.bodyToStripe(event.body), contentType: "application/json" })),
  );
  return unrecorded.length;
}
