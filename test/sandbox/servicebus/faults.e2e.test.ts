// Fault injection and the emulator's own API, driven through the real @azure/service-bus SDK.
import { ServiceBusClient, isServiceBusError } from "@azure/service-bus";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tuneQueue } from "../../../tuning/index.js";
import { queueOptionsFromTuning, startServiceBusEmulator } from "../../../sandbox/index.js";
import { errorCode, sleep, startHarness, waitFor } from "./support.js";

let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  harness.emulator.faults.clear();
  await harness.close();
});

async function sendOne(queue: string, body: unknown, messageId?: string): Promise<void> {
  const sender = harness.client.createSender(queue);
  await sender.sendMessages({ body, ...(messageId ? { messageId } : {}) });
  await sender.close();
}

describe("renew-lock faults", () => {
  test("serverBusy answers ServiceBusy for as many renewals as `times`, then renewals work again", async () => {
    const queue = harness.queue({ lockDurationMs: 5000 });
    await sendOne(queue, "renew");
    const fault = harness.emulator.faults.inject({ operation: "renewLock", action: "serverBusy", queue, times: 2 });
    const receiver = harness.impatient.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!message) throw new Error("expected a message");
    expect(await errorCode(receiver.renewMessageLock(message))).toBe("ServiceBusy");
    expect(await errorCode(receiver.renewMessageLock(message))).toBe("ServiceBusy");
    expect(fault.hits).toBe(2);
    expect((await receiver.renewMessageLock(message)).getTime()).toBeGreaterThan(Date.now());
    await receiver.completeMessage(message);
    await receiver.close();
  });

  test("delay holds the answer, and a lock that lapses meanwhile is MessageLockLost", async () => {
    const queue = harness.queue({ lockDurationMs: 2000 });
    await sendOne(queue, "late renewal");
    harness.emulator.faults.inject({ operation: "renewLock", action: "delay", delayMs: 2500, queue, times: 1 });
    const receiver = harness.impatient.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!message) throw new Error("expected a message");
    expect(await errorCode(receiver.renewMessageLock(message))).toBe("MessageLockLost");
    expect(harness.emulator.inspect(queue).locked).toEqual([]);
    await receiver.close();
  });

  test("never leaves auto-renewal hanging, so the lock lapses although the SDK is renewing", async () => {
    const queue = harness.queue({ lockDurationMs: 2000 });
    harness.emulator.faults.inject({ operation: "renewLock", action: "never", queue });
    await sendOne(queue, "unrenewed", "never-1");
    const receiver = harness.client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 60_000 });
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(message?.messageId).toBe("never-1");
    await waitFor(() => harness.emulator.inspect(queue).active.length === 1, 4000, "the lock to lapse");
    expect(harness.emulator.inspect(queue).active[0]?.deliveryCount).toBe(1);
    await receiver.close();
  });
});

describe("settlement faults", () => {
  test("a complete answered serverBusy fails that delivery; the message stays locked, then comes back", async () => {
    const queue = harness.queue({ lockDurationMs: 2000 });
    await sendOne(queue, { customer: "cus_a" }, "a");
    await sendOne(queue, { customer: "cus_b" }, "b");
    const fault = harness.emulator.faults.inject({
      operation: "complete",
      action: "serverBusy",
      queue,
      when: (message) => message.messageId === "b",
    });
    const receiver = harness.impatient.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
    const [a, b] = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    if (!a || !b) throw new Error("expected two messages");
    await receiver.completeMessage(a);
    expect(await errorCode(receiver.completeMessage(b))).toBe("ServiceBusy");
    expect(fault.hits).toBe(1);
    fault.remove();
    expect(harness.emulator.inspect(queue).locked.map((message) => message.messageId)).toEqual(["b"]);
    // The broker settled that delivery with the error: the SDK will not settle it again.
    await expect(receiver.completeMessage(b)).rejects.toThrow(/already settled/);
    const [again] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5000 });
    expect(again?.messageId).toBe("b");
    expect(again?.deliveryCount).toBe(1);
    if (again) await receiver.completeMessage(again);
    await receiver.close();
  });

  test("`settle` covers dead-lettering and settlement over $management (deferred messages)", async () => {
    const queue = harness.queue();
    await sendOne(queue, "defer me");
    const receiver = harness.impatient.createReceiver(queue);
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!message?.sequenceNumber) throw new Error("expected a message");
    await receiver.deferMessage(message);
    const [deferred] = await receiver.receiveDeferredMessages([message.sequenceNumber]);
    if (!deferred) throw new Error("expected the deferred message");
    harness.emulator.faults.inject({ operation: "settle", action: "serverBusy", queue, times: 1 });
    expect(
      await errorCode(receiver.deadLetterMessage(deferred, { deadLetterReason: "r", deadLetterErrorDescription: "d" })),
    ).toBe("ServiceBusy");
    await receiver.deadLetterMessage(deferred, { deadLetterReason: "r", deadLetterErrorDescription: "d" });
    expect(harness.emulator.inspect(queue).deadLettered[0]?.deadLetterReason).toBe("r");
    await receiver.close();
  });

  test("a delayed complete is applied when it is answered", async () => {
    const queue = harness.queue();
    await sendOne(queue, "slow ack");
    harness.emulator.faults.inject({ operation: "complete", action: "delay", delayMs: 1500, queue, times: 1 });
    const receiver = harness.client.createReceiver(queue);
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!message) throw new Error("expected a message");
    const completing = receiver.completeMessage(message);
    await sleep(200);
    expect(harness.emulator.inspect(queue).locked).toHaveLength(1);
    await completing;
    expect(harness.emulator.inspect(queue).locked).toEqual([]);
    await receiver.close();
  });
});

describe("send and connection faults", () => {
  test("a rejected send raises ServiceBusy and enqueues nothing", async () => {
    const queue = harness.queue();
    harness.emulator.faults.inject({
      operation: "send",
      action: "serverBusy",
      queue,
      when: (message) => (message.body as { amountCents?: number }).amountCents === 999,
    });
    const sender = harness.impatient.createSender(queue);
    expect(await errorCode(sender.sendMessages([{ body: { amountCents: 1 } }, { body: { amountCents: 999 } }]))).toBe(
      "ServiceBusy",
    );
    await sender.sendMessages({ body: { amountCents: 2 } });
    await sender.close();
    expect(harness.emulator.inspect(queue).active.map((message) => message.body)).toEqual([{ amountCents: 2 }]);
  });

  test("expireLock ends a lock now: the message is redelivered and the holder gets MessageLockLost", async () => {
    const queue = harness.queue({ lockDurationMs: 60_000 });
    await sendOne(queue, "first", "x");
    await sendOne(queue, "second", "y");
    const receiver = harness.client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
    const held = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    expect(harness.emulator.faults.expireLock(queue, (message) => message.messageId === "x")).toBe(1);
    const x = held.find((message) => message.messageId === "x");
    const y = held.find((message) => message.messageId === "y");
    if (!x || !y) throw new Error("expected both messages");
    expect(await errorCode(receiver.completeMessage(x))).toBe("MessageLockLost");
    await receiver.completeMessage(y);
    const [again] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(again?.messageId).toBe("x");
    expect(again?.deliveryCount).toBe(1);
    if (again) await receiver.completeMessage(again);
    await receiver.close();
  });

  test("dropped connections are re-established by the SDK while locks stay held", async () => {
    const queue = harness.queue({ lockDurationMs: 60_000 });
    await sendOne(queue, "held", "held-1");
    const receiver = harness.client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(message?.messageId).toBe("held-1");
    harness.emulator.faults.dropConnections();
    // Let the SDK see the loss first: a link it opens on a connection that is already dead waits out its timeout.
    await sleep(300);
    await sendOne(queue, "after the drop", "after-1");
    expect(harness.emulator.inspect(queue).locked.map((locked) => locked.messageId)).toEqual(["held-1"]);
    const [next] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5000 });
    expect(next?.messageId).toBe("after-1");
    if (next) await receiver.completeMessage(next);
    await receiver.close();
  });

  test("detached links are re-attached by a subscribed receiver", async () => {
    const queue = harness.queue();
    const seen: string[] = [];
    const receiver = harness.client.createReceiver(queue);
    const subscription = receiver.subscribe({
      processMessage: async (message) => {
        seen.push(String(message.body));
      },
      processError: async () => {},
    });
    await sendOne(queue, "before");
    await waitFor(() => seen.length === 1);
    expect(harness.emulator.faults.detachLinks(queue)).toBeGreaterThan(0);
    await sendOne(queue, "after");
    await waitFor(() => seen.length === 2, 15_000, "delivery after re-attach");
    await subscription.close();
    await receiver.close();
    expect(seen).toEqual(["before", "after"]);
  });

  test("refused receive links: the subscription receives nothing and reports receive errors while peeks answer; restored, it receives", async () => {
    const queue = harness.queue();
    const seen: string[] = [];
    const errors: string[] = [];
    const receiver = harness.client.createReceiver(queue);
    const subscription = receiver.subscribe({
      processMessage: async (message) => {
        seen.push(String(message.body));
      },
      processError: async ({ errorSource }) => void errors.push(errorSource),
    });
    await sendOne(queue, "before");
    await waitFor(() => seen.length === 1);
    const restore = harness.emulator.faults.refuseReceiveLinks(queue);
    await sendOne(queue, "while-refused");
    await waitFor(() => errors.includes("receive"), 15_000, "a receive error");
    expect((await receiver.peekMessages(5)).map((message) => String(message.body))).toContain("while-refused");
    expect(seen).toEqual(["before"]);
    restore();
    await waitFor(() => seen.length === 2, 60_000, "delivery once restored");
    await subscription.close();
    await receiver.close();
    expect(seen).toEqual(["before", "while-refused"]);
  });
});

describe("answers given in the same tick", () => {
  // rhea would send a tick's answers as one range with the first one's outcome (sandbox/servicebus/disposition-flush.ts);
  // the broker answers each on its own, so the emulator must too.
  test("two completions on one link, one refused ServerBusy: one succeeds, the other fails and stays locked", async () => {
    const queue = harness.queue({ lockDurationMs: 30_000 });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages([{ body: "a", messageId: "a" }, { body: "b", messageId: "b" }]);
    await sender.close();
    harness.emulator.faults.inject({ operation: "complete", action: "serverBusy", queue, when: (message) => message.messageId === "b" });
    const receiver = harness.impatient.createReceiver(queue);
    const received = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    const byId = new Map(received.map((message) => [String(message.messageId), message]));
    const [a, b] = await Promise.allSettled([receiver.completeMessage(byId.get("a")!), receiver.completeMessage(byId.get("b")!)]);
    expect(a.status).toBe("fulfilled");
    expect(b.status === "rejected" && isServiceBusError(b.reason) ? b.reason.code : b.status).toBe("ServiceBusy");
    expect(harness.emulator.inspect(queue).locked.map((message) => message.messageId)).toEqual(["b"]);
    harness.emulator.faults.clear();
    await receiver.close();
  });

  test("four sends on one link, the second refused ServerBusy: each client is told its own answer", async () => {
    const queue = harness.queue();
    harness.emulator.faults.inject({ operation: "send", action: "serverBusy", queue, when: (message) => message.messageId === "second" });
    const sender = harness.impatient.createSender(queue);
    const ids = ["first", "second", "third", "fourth"];
    const sent = await Promise.allSettled(ids.map((messageId, body) => sender.sendMessages({ body, messageId })));
    harness.emulator.faults.clear();
    expect(sent.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(harness.emulator.inspect(queue).active.map((message) => message.messageId)).toEqual(["first", "third", "fourth"]);
    await sender.close();
  });
});

describe("emulator API", () => {
  test("bad fault rules, queue options and queue names are refused with clear errors", () => {
    const { faults } = harness.emulator;
    expect(() => faults.inject({ operation: "purge" as never, action: "serverBusy" })).toThrow(/operation must be one of/);
    expect(() => faults.inject({ operation: "send", action: "explode" as never })).toThrow(/action must be one of/);
    expect(() => faults.inject({ operation: "send", action: "delay" })).toThrow(/delayMs/);
    expect(() => faults.inject({ operation: "send", action: "never", times: 0 })).toThrow(/times/);
    expect(() => harness.emulator.addQueue("bad$name")).toThrow(/invalid/);
    expect(() => harness.emulator.addQueue("q-options", { lockDurationMs: -1 })).toThrow(/lockDurationMs/);
    expect(() => harness.emulator.addQueue("q-options", { maxDeliveryCount: 1.5 })).toThrow(/maxDeliveryCount/);
    const name = harness.queue();
    expect(() => harness.emulator.addQueue(name)).toThrow(/already exists/);
    expect(() => harness.emulator.inspect("nope")).toThrow(/No queue named nope/);
    expect(() => faults.expireLock("nope")).toThrow(/No queue named nope/);
  });

  test("queueOptionsFromTuning sets a queue up as BillingQueue deploys it from the infra tuning", () => {
    const tuning = tuneQueue({ stripe: { timeoutMs: 10_000, maxNetworkRetries: 2 } });
    expect(queueOptionsFromTuning(tuning)).toEqual({
      lockDurationMs: tuning.lockDurationMs,
      maxDeliveryCount: tuning.maxDeliveryCount,
      defaultTtlMs: tuning.defaultMessageTimeToLiveMs,
      duplicateDetectionWindowMs: tuning.duplicateDetectionWindowMs,
      deadLetteringOnMessageExpiration: true,
    });
    expect(queueOptionsFromTuning(tuning, { duplicateDetection: false }).duplicateDetectionWindowMs).toBeUndefined();
    expect(
      queueOptionsFromTuning({
        lockDurationMs: 45_000,
        maxDeliveryCount: 5,
        defaultMessageTimeToLiveMs: 86_400_000,
        duplicateDetectionWindowMs: 600_000,
      }),
    ).toEqual({
      lockDurationMs: 45_000,
      maxDeliveryCount: 5,
      defaultTtlMs: 86_400_000,
      duplicateDetectionWindowMs: 600_000,
      deadLetteringOnMessageExpiration: true,
    });
  });

  test("stop() closes client connections, the listener and its timers", async () => {
    const tcpHandles = () =>
      process.getActiveResourcesInfo().filter((kind) => kind === "TCPServerWrap" || kind === "TCPSocketWrap").length;
    const before = tcpHandles();
    const emulator = await startServiceBusEmulator({ queues: { only: { lockDurationMs: 60_000, defaultTtlMs: 600_000 } } });
    const client = new ServiceBusClient(emulator.connectionString);
    const sender = client.createSender("only");
    await sender.sendMessages([
      { body: "locked" },
      { body: "left behind", scheduledEnqueueTimeUtc: new Date(Date.now() + 3_600_000) },
    ]);
    const receiver = client.createReceiver("only", { maxAutoLockRenewalDurationInMs: 0 });
    await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    emulator.faults.inject({ operation: "renewLock", action: "delay", delayMs: 3_600_000 });
    expect(emulator.inspect("only")).toMatchObject({ locked: [{ body: "locked" }], scheduled: [{ body: "left behind" }] });
    await client.close();
    const lingering = connect(emulator.port, "127.0.0.1");
    const lingeringClosed = new Promise<void>((resolve) => lingering.once("close", () => resolve()));
    lingering.on("error", () => {});
    await new Promise((resolve) => lingering.once("connect", resolve));
    await emulator.stop();
    await lingeringClosed;
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(emulator.port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", () => resolve(true));
    });
    expect(refused).toBe(true);
    await waitFor(() => tcpHandles() <= before, 2000, "TCP handles to close");
  });
});
