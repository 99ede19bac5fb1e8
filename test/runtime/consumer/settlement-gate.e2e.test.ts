// Settling two messages in the same tick through the real @azure/service-bus SDK: rhea merges their dispositions
// into one range with the first one's outcome (runtime/consumer/settlement-gate.ts), so Service Bus (here the emulator, which
// applies a range as sent) completes a dead letter or dead-letters a completed message. The gate gives each message
// its own outcome.
import { ServiceBusClient, type ServiceBusReceivedMessage, type ServiceBusReceiver } from "@azure/service-bus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateSettlements } from "../../../runtime/index.js";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../../sandbox/servicebus/index.js";

let emulator: ServiceBusEmulator;
let client: ServiceBusClient;
let queues = 0;

beforeAll(async () => {
  emulator = await startServiceBusEmulator({ queues: {} });
  client = new ServiceBusClient(emulator.connectionString);
});
afterAll(async () => {
  await client?.close();
  await emulator?.stop();
});

type Settle = "complete" | "deadLetter" | "abandon" | "defer";

/** `settles.length` messages on a fresh queue, received in one call (consecutive deliveries), then settled in one tick. */
async function settleTogether(settles: readonly Settle[], gate: boolean): Promise<{ queue: string; ids: string[] }> {
  const queue = `settle-${++queues}`;
  emulator.addQueue(queue, { lockDurationMs: 30_000, maxDeliveryCount: 10 });
  const ids = settles.map((settle, index) => `${settle}-${index}`);
  const sender = client.createSender(queue);
  await sender.sendMessages(ids.map((messageId) => ({ body: { messageId }, messageId })));
  await sender.close();
  const raw = client.createReceiver(queue);
  const receiver: ServiceBusReceiver = gate ? gateSettlements(raw) : raw;
  const received: ServiceBusReceivedMessage[] = [];
  while (received.length < ids.length) received.push(...(await raw.receiveMessages(ids.length - received.length, { maxWaitTimeInMs: 5_000 })));
  const byId = new Map(received.map((message) => [String(message.messageId), message]));
  await Promise.all(
    settles.map((settle, index) => {
      const message = byId.get(ids[index]!)!;
      if (settle === "complete") return receiver.completeMessage(message);
      if (settle === "deadLetter") return receiver.deadLetterMessage(message, { deadLetterReason: `reason-${index}`, deadLetterErrorDescription: `description-${index}` });
      if (settle === "abandon") return receiver.abandonMessage(message);
      return receiver.deferMessage(message);
    }),
  );
  await raw.close();
  return { queue, ids };
}

/** Where each message ended up, by id. */
function outcomes(queue: string): Record<string, string> {
  const snapshot = emulator.inspect(queue);
  const where: Record<string, string> = {};
  for (const message of snapshot.deadLettered) where[message.messageId] = `dead-lettered ${message.deadLetterReason} ${message.deadLetterDescription}`;
  for (const message of snapshot.active) where[message.messageId] = "active";
  for (const message of snapshot.deferred) where[message.messageId] = "deferred";
  for (const message of snapshot.locked) where[message.messageId] = "locked";
  return where;
}

describe("settling messages in the same tick", () => {
  // If these fail, rhea writes each outcome faithfully now: the gate can go (runtime/consumer/settlement-gate.ts).
  it("without the gate, rhea gives a dead letter the completion settled just before it: the dead letter is lost", async () => {
    const { queue } = await settleTogether(["complete", "deadLetter"], false);
    expect(outcomes(queue)).toEqual({});
  });

  it("without the gate, a completed message settled after a dead letter is dead-lettered with the other's reason", async () => {
    const { queue, ids } = await settleTogether(["deadLetter", "complete", "deadLetter"], false);
    expect(outcomes(queue)).toMatchObject({ [ids[0]!]: "dead-lettered reason-0 description-0", [ids[1]!]: "dead-lettered reason-0 description-0" });
  });

  it.each([
    [["complete", "deadLetter"]],
    [["deadLetter", "complete", "deadLetter"]],
    [["deadLetter", "deadLetter", "complete", "complete", "abandon", "complete"]],
    [["abandon", "complete", "defer", "deadLetter", "complete"]],
  ] as const)("through the gate, each of %j gets its own outcome", async (settles) => {
    const { queue, ids } = await settleTogether(settles, true);
    const expected: Record<string, string> = {};
    settles.forEach((settle, index) => {
      if (settle === "deadLetter") expected[ids[index]!] = `dead-lettered reason-${index} description-${index}`;
      if (settle === "abandon") expected[ids[index]!] = "active";
      if (settle === "defer") expected[ids[index]!] = "deferred";
    });
    expect(outcomes(queue)).toEqual(expected);
  });
});
