// Settling messages of the dead-letter subqueue, as the Azure SDK team's batchReceiver tests ("Settle deadlettered
// message") expect of Service Bus: dead-lettering a dead letter is refused (amqp:not-allowed, which the SDK raises as
// GeneralError "InvalidOperationError: ..."), and the message stays in the subqueue, deliverable again.
import { isServiceBusError, type ServiceBusReceivedMessage, type ServiceBusReceiver } from "@azure/service-bus";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startHarness } from "./support.js";

let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

/** Sends one message, dead-letters it from the queue and receives it from the subqueue. */
async function deadLettered(messageId: string): Promise<{ queue: string; deadLetters: ServiceBusReceiver; dead: ServiceBusReceivedMessage }> {
  const queue = harness.queue();
  const sender = harness.client.createSender(queue);
  await sender.sendMessages({ body: "poison", messageId });
  await sender.close();
  const receiver = harness.client.createReceiver(queue);
  const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
  if (!message) throw new Error("expected the message");
  await receiver.deadLetterMessage(message, { deadLetterReason: "Test", deadLetterErrorDescription: "first" });
  await receiver.close();
  const deadLetters = harness.client.createReceiver(queue, { subQueueType: "deadLetter" });
  const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 2000 });
  if (!dead) throw new Error("expected the dead letter");
  return { queue, deadLetters, dead };
}

async function refusal(operation: Promise<void>): Promise<{ code: string; message: string }> {
  try {
    await operation;
  } catch (error) {
    if (isServiceBusError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected dead-lettering a dead letter to be refused");
}

test("dead-lettering a message received from the dead-letter queue is refused; it stays there, deliverable again", async () => {
  const { queue, deadLetters, dead } = await deadLettered("dl-twice");
  const refused = await refusal(deadLetters.deadLetterMessage(dead, { deadLetterReason: "Again", deadLetterErrorDescription: "second" }));
  expect(refused.code).toBe("GeneralError");
  expect(refused.message).toMatch(/^InvalidOperationError: /);

  const [again] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 2000 });
  expect(again?.messageId).toBe("dl-twice");
  expect(again?.deliveryCount).toBe(0);
  expect(again?.deadLetterReason).toBe("Test");
  if (!again) throw new Error("expected the dead letter again");
  await deadLetters.completeMessage(again);
  expect(await deadLetters.peekMessages(1)).toEqual([]);
  expect(harness.emulator.counts(queue)).toMatchObject({ active: 0, deadLettered: 0 });
  await deadLetters.close();
});

test("the same refusal over $management, for a deferred dead letter; the dead letter stays deferred", async () => {
  const { queue, deadLetters, dead } = await deadLettered("dl-deferred");
  const sequenceNumber = dead.sequenceNumber;
  if (!sequenceNumber) throw new Error("expected a sequence number");
  await deadLetters.deferMessage(dead);
  const [deferred] = await deadLetters.receiveDeferredMessages([sequenceNumber]);
  if (!deferred) throw new Error("expected the deferred dead letter");
  const refused = await refusal(deadLetters.deadLetterMessage(deferred, { deadLetterReason: "Again", deadLetterErrorDescription: "second" }));
  expect(refused.code).toBe("GeneralError");
  expect(refused.message).toMatch(/^InvalidOperationError: /);
  expect(harness.emulator.counts(queue)).toMatchObject({ deferred: 0, deadLettered: 1 });

  const [still] = await deadLetters.receiveDeferredMessages([sequenceNumber]);
  expect(still?.messageId).toBe("dl-deferred");
  if (!still) throw new Error("expected the deferred dead letter again");
  await deadLetters.completeMessage(still);
  expect(harness.emulator.counts(queue)).toMatchObject({ deadLettered: 0 });
  await deadLetters.close();
});
