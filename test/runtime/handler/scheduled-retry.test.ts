// scheduleRetry (chargeguard/runtime/handler), the one call a consumer's own catch block makes in place of
// abandonMessage, through the real @azure/service-bus SDK against the sandbox's Service Bus: the copy is scheduled
// after a backoff with the event's body and properties and its attempt, the original completed; past the last
// attempt the message is dead-lettered; a copy that cannot be scheduled leaves the original to its lock.
import { ServiceBusClient, type ServiceBusReceivedMessage, type ServiceBusReceiver, type ServiceBusSender } from "@azure/service-bus";
import { scheduleRetry, type RetryPolicy } from "chargeguard/runtime/handler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../../sandbox/index.js";

let emulator: ServiceBusEmulator;
let client: ServiceBusClient;
let queues = 0;
beforeAll(async () => {
  emulator = await startServiceBusEmulator({ queues: {} });
  client = new ServiceBusClient(emulator.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 10_000 } });
});
afterAll(async () => {
  await client.close();
  await emulator.stop();
});

/**
 * A fresh queue holding one billing event (its body and the properties a stable key is built from), with the
 * consumer's receiver and sender on it (client.close() closes them).
 */
async function consumerWithEvent(): Promise<{ queue: string; receiver: ServiceBusReceiver; sender: ServiceBusSender }> {
  const queue = `retry-${++queues}`;
  emulator.addQueue(queue);
  const sender = client.createSender(queue);
  await sender.sendMessages({
    body: { customerId: "cus_1", billingPeriod: "2026-05", amount: 1200 },
    messageId: "evt-1",
    contentType: "application/json",
    applicationProperties: { tenant: "acme", eventType: "usage" },
  });
  await sender.close();
  return { queue, receiver: client.createReceiver(queue), sender: client.createSender(queue) };
}

async function receiveOne(receiver: ServiceBusReceiver): Promise<ServiceBusReceivedMessage> {
  for (let tries = 0; tries < 20; tries += 1) {
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 500 });
    if (message) return message;
  }
  throw new Error("no message arrived");
}

/** Short delays, so the copies arrive within the test. */
const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 1_000 };

describe("scheduleRetry", () => {
  it("schedules a copy after the attempt's backoff, completes the original, and counts the attempts across copies", async () => {
    const { queue, receiver, sender } = await consumerWithEvent();
    const lines: string[] = [];

    const first = await receiveOne(receiver);
    const retried = await scheduleRetry(receiver, sender, first, { policy, reason: "stripe timeout", log: (line) => lines.push(line) });
    expect(retried.settled).toBe(true);
    expect(retried.action).toMatchObject({ action: "retry-later", attempt: 2, messageId: "evt-1:retry:2", description: "stripe timeout" });
    // Equal jitter: attempt 1 waits between half the base delay and the base delay.
    const firstDelay = retried.action.action === "retry-later" ? retried.action.delayMs : -1;
    expect(firstDelay).toBeGreaterThanOrEqual(100);
    expect(firstDelay).toBeLessThanOrEqual(200);
    const scheduled = emulator.inspect(queue);
    expect([scheduled.active.length, scheduled.locked.length, scheduled.scheduled.length]).toEqual([0, 0, 1]);
    expect(lines.join("\n")).toContain("message evt-1: outcome unknown (stripe timeout); retry 2 as evt-1:retry:2");

    const copy = await receiveOne(receiver);
    expect(copy.messageId).toBe("evt-1:retry:2");
    expect(copy.body).toEqual(first.body);
    expect(copy.contentType).toBe("application/json");
    expect(copy.deliveryCount).toBe(0);
    expect(copy.applicationProperties).toEqual({
      tenant: "acme",
      eventType: "usage",
      "chargeguard-attempt": 2,
      "chargeguard-chain": "evt-1",
      "chargeguard-retry-reason": "stripe timeout",
      "chargeguard-deadline": expect.any(Number) as number,
    });

    const again = await scheduleRetry(receiver, sender, copy, { policy });
    expect(again).toMatchObject({ settled: true, action: { action: "retry-later", attempt: 3, messageId: "evt-1:retry:3" } });
    // The backoff doubles: attempt 2 waits between the base delay and twice it.
    const secondDelay = again.action.action === "retry-later" ? again.action.delayMs : -1;
    expect(secondDelay).toBeGreaterThanOrEqual(200);
    expect(secondDelay).toBeLessThanOrEqual(400);
    expect((await receiveOne(receiver)).applicationProperties?.["chargeguard-attempt"]).toBe(3);
  });

  it("dead-letters the chain's last attempt with RetryAttemptsExhausted instead of scheduling another", async () => {
    const { queue, receiver, sender } = await consumerWithEvent();
    const first = await receiveOne(receiver);
    const answer = await scheduleRetry(receiver, sender, first, { policy: { ...policy, maxAttempts: 1 }, reason: "stripe 500" });
    expect(answer.settled).toBe(true);
    expect(answer.action).toMatchObject({ action: "dead-letter", reason: "RetryAttemptsExhausted" });
    const snapshot = emulator.inspect(queue);
    expect(snapshot.scheduled).toHaveLength(0);
    expect(snapshot.deadLettered.map((message) => [message.messageId, message.deadLetterReason])).toEqual([["evt-1", "RetryAttemptsExhausted"]]);
    expect(snapshot.deadLettered[0]?.deadLetterDescription).toContain("stripe 500");
  });

  it("leaves the original to its lock when the copy cannot be scheduled, and says so", async () => {
    const { queue, receiver, sender } = await consumerWithEvent();
    await sender.close();
    const lines: string[] = [];
    const first = await receiveOne(receiver);
    const answer = await scheduleRetry(receiver, sender, first, { policy, log: (line) => lines.push(line) });
    expect(answer.settled).toBe(false);
    const snapshot = emulator.inspect(queue);
    expect([snapshot.locked.length, snapshot.scheduled.length, snapshot.deadLettered.length]).toEqual([1, 0, 0]);
    expect(lines.join("\n")).toMatch(/scheduling the retry failed .*\n.*retry not scheduled; leaving the message to its lock/);
  });
});
