// What producers and operators do to the queue: the initial send of the workload, an operator's dead-letter
// resubmission with new messageIds, and the producer's nightly re-send of events that have no billing record.
import type { ServiceBusClient, ServiceBusMessage, ServiceBusSender } from "@azure/service-bus";
import type { CustomerDirectory } from "./customers.js";
import type { Workload, WorkloadEvent } from "./workload.js";

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

/** The message body of a workload event as the contender's flow takes it, with Stripe's customer ids. */
export type BodyOf = (event: WorkloadEvent) => unknown;

/** The workload's bodies as sent: translated to Stripe's customer ids (default), or in a flow's shape. */
export function workloadMessages(workload: Workload, directory: CustomerDirectory, bodyOf?: BodyOf): ServiceBusMessage[] {
  const events = new Map(workload.events.map((event) => [event.id, event]));
  return workload.messages.map(({ messageId, body, eventId }) => ({
    messageId,
    body: bodyOf ? bodyOf(events.get(eventId) as WorkloadEvent) : directory.bodyToStripe(body),
    contentType: "application/json",
  }));
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
 * The seed's nightly reconciliation of unbilled usage: every valid event without a billing record (`recorded`, from
 * the contender's own table: prove/measure/observe.ts) is sent again with a new messageId. A contender that keeps no
 * records (`recorded` undefined) gets nothing re-sent.
 */
export async function resendUnrecorded(options: {
  sender: ServiceBusSender;
  workload: Workload;
  recorded: ReadonlySet<string> | undefined;
  bodyOf: BodyOf;
  newMessageId: () => string;
}): Promise<number> {
  const { recorded } = options;
  if (recorded === undefined) return 0;
  const unrecorded = options.workload.events.filter((event) => event.usage && !recorded.has(event.id));
  await sendAll(
    options.sender,
    unrecorded.map((event) => ({ messageId: options.newMessageId(), body: options.bodyOf(event), contentType: "application/json" })),
  );
  return unrecorded.length;
}
