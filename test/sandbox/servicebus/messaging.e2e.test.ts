// The emulator's queue semantics, driven through the real @azure/service-bus SDK.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { errorCode, sleep, startHarness, waitFor } from "./support.js";

let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("sending", () => {
  test("single messages, arrays and batches arrive in order with broker-assigned ids and sequence numbers", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({
      body: { n: 1 },
      messageId: "own-id",
      applicationProperties: { kind: "usage" },
      subject: "usage.recorded",
      correlationId: "corr-1",
      contentType: "application/json",
      timeToLive: 3_600_000,
    });
    await sender.sendMessages([{ body: { n: 2 } }, { body: { n: 3 } }]);
    const batch = await sender.createMessageBatch();
    for (const n of [4, 5, 6]) expect(batch.tryAddMessage({ body: { n } })).toBe(true);
    await sender.sendMessages(batch);
    await sender.close();

    const active = harness.emulator.inspect(queue).active;
    expect(active.map((message) => message.body)).toEqual([1, 2, 3, 4, 5, 6].map((n) => ({ n })));
    expect(active.map((message) => message.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(active[0]?.messageId).toBe("own-id");
    expect(active[0]?.applicationProperties).toEqual({ kind: "usage" });
    for (const message of active.slice(1)) expect(message.messageId).toMatch(uuidPattern);
    expect(new Set(active.map((message) => message.messageId)).size).toBe(6);

    const receiver = harness.client.createReceiver(queue);
    const received: ServiceBusReceivedMessage[] = [];
    while (received.length < 6) received.push(...(await receiver.receiveMessages(6, { maxWaitTimeInMs: 2000 })));
    expect(received.map((message) => message.messageId)).toEqual(active.map((message) => message.messageId));
    expect(received.map((message) => message.sequenceNumber?.toString())).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(received.map((message) => message.deliveryCount)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(received[0]).toMatchObject({
      applicationProperties: { kind: "usage" },
      subject: "usage.recorded",
      correlationId: "corr-1",
      contentType: "application/json",
      timeToLive: 3_600_000,
    });
    expect(received[0]?.lockToken).toMatch(uuidPattern);
    expect(received[0]?.enqueuedTimeUtc).toBeInstanceOf(Date);
    expect(received[0]?.lockedUntilUtc?.getTime()).toBeGreaterThan(Date.now());
    expect(harness.emulator.inspect(queue).locked).toHaveLength(6);
    for (const message of received) await receiver.completeMessage(message);
    await receiver.close();
    const after = harness.emulator.inspect(queue);
    expect(after.active).toEqual([]);
    expect(after.locked).toEqual([]);
  });

  test("a missing queue is MessagingEntityNotFound for senders and receivers", async () => {
    const sender = harness.impatient.createSender("no-such-queue");
    expect(await errorCode(sender.sendMessages({ body: "x" }))).toBe("MessagingEntityNotFound");
    await sender.close();
    const receiver = harness.impatient.createReceiver("no-such-queue");
    expect(await errorCode(receiver.receiveMessages(1, { maxWaitTimeInMs: 500 }))).toBe("MessagingEntityNotFound");
    await receiver.close();
  });

  test("duplicate detection drops a repeated messageId within the window", async () => {
    const queue = harness.queue({ duplicateDetectionWindowMs: 60_000 });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "first", messageId: "evt-1" });
    await sender.sendMessages([{ body: "again", messageId: "evt-1" }, { body: "other", messageId: "evt-2" }]);
    await sender.close();
    expect(harness.emulator.inspect(queue).active.map((message) => [message.messageId, message.body])).toEqual([
      ["evt-1", "first"],
      ["evt-2", "other"],
    ]);
  });

  test("the window remembers ids, not messages: a re-send of a completed or dead-lettered id, or of a scheduled one, is dropped", async () => {
    const queue = harness.queue({ duplicateDetectionWindowMs: 60_000, lockDurationMs: 5_000 });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages([{ body: "done", messageId: "evt-done" }, { body: "dead", messageId: "evt-dead" }]);
    await sender.scheduleMessages({ body: "later", messageId: "evt-later" }, new Date(Date.now() + 60_000));
    const receiver = harness.client.createReceiver(queue);
    const received = await receiver.receiveMessages(2, { maxWaitTimeInMs: 5_000 });
    for (const message of received) {
      if (message.messageId === "evt-done") await receiver.completeMessage(message);
      else await receiver.deadLetterMessage(message, { deadLetterReason: "Test", deadLetterErrorDescription: "for the window" });
    }
    // Accepted by the broker (no error), then dropped: what an operator's resubmission with a kept id meets.
    await sender.sendMessages([
      { body: "done again", messageId: "evt-done" },
      { body: "dead again", messageId: "evt-dead" },
      { body: "later again", messageId: "evt-later" },
    ]);
    await receiver.close();
    await sender.close();
    expect(harness.emulator.counts(queue)).toMatchObject({ active: 0, scheduled: 1, deadLettered: 1 });
  });

  test("without duplicate detection a repeated messageId is a second message", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    await sender.sendMessages([{ body: 1, messageId: "same" }, { body: 2, messageId: "same" }]);
    await sender.close();
    expect(harness.emulator.inspect(queue).active).toHaveLength(2);
  });
});

describe("receiving", () => {
  test("receiveAndDelete removes messages on delivery and carries no lock", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    await sender.sendMessages([{ body: "a" }, { body: "b" }, { body: "c" }]);
    await sender.close();
    const receiver = harness.client.createReceiver(queue, { receiveMode: "receiveAndDelete" });
    const received: ServiceBusReceivedMessage[] = [];
    while (received.length < 3) received.push(...(await receiver.receiveMessages(3, { maxWaitTimeInMs: 1000 })));
    await receiver.close();
    expect(received.map((message) => message.body)).toEqual(["a", "b", "c"]);
    expect(received.every((message) => message.lockToken === undefined)).toBe(true);
    const snapshot = harness.emulator.inspect(queue);
    expect(snapshot.active).toEqual([]);
    expect(snapshot.locked).toEqual([]);
  });

  test("peekMessages reads without locking and an empty queue peeks nothing", async () => {
    const queue = harness.queue();
    const receiver = harness.client.createReceiver(queue);
    expect(await receiver.peekMessages(5)).toEqual([]);
    const sender = harness.client.createSender(queue);
    await sender.sendMessages([{ body: 1 }, { body: 2 }, { body: 3 }]);
    await sender.close();
    const first = await receiver.peekMessages(2);
    const next = await receiver.peekMessages(2);
    expect(first.map((message) => message.body)).toEqual([1, 2]);
    expect(next.map((message) => message.body)).toEqual([3]);
    expect(first[0]?.lockToken).toBeUndefined();
    expect(harness.emulator.inspect(queue).active).toHaveLength(3);
    await receiver.close();
  });

  test("competing receivers share a queue and each message is handled once", async () => {
    const queue = harness.queue();
    const handledBy = new Map<string, string[]>();
    const subscribe = (name: string) => {
      const receiver = harness.client.createReceiver(queue);
      const subscription = receiver.subscribe(
        {
          processMessage: async (message) => {
            handledBy.set(String(message.body), [...(handledBy.get(String(message.body)) ?? []), name]);
            await sleep(5);
          },
          processError: async () => {},
        },
        { maxConcurrentCalls: 4 },
      );
      return { receiver, subscription };
    };
    const consumers = [subscribe("one"), subscribe("two")];
    await waitFor(() => harness.emulator.inspect(queue).receivers === 2, 10_000, "both receive links");
    const sender = harness.client.createSender(queue);
    await sender.sendMessages(Array.from({ length: 40 }, (_, n) => ({ body: `m${n}` })));
    await sender.close();
    await waitFor(() => handledBy.size === 40 && harness.emulator.inspect(queue).locked.length === 0);
    for (const { subscription, receiver } of consumers) {
      await subscription.close();
      await receiver.close();
    }
    expect([...handledBy.values()].every((names) => names.length === 1)).toBe(true);
    const perReceiver = [...handledBy.values()].flat();
    expect(perReceiver.filter((name) => name === "one").length).toBeGreaterThan(0);
    expect(perReceiver.filter((name) => name === "two").length).toBeGreaterThan(0);
    expect(harness.emulator.inspect(queue).active).toEqual([]);
  });
});

describe("settlement", () => {
  test("abandon redelivers at once with deliveryCount + 1; MaxDeliveryCount dead-letters the message", async () => {
    const queue = harness.queue({ maxDeliveryCount: 3 });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "poison", messageId: "poison-1" });
    await sender.close();
    const receiver = harness.client.createReceiver(queue);
    const counts: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
      if (!message) throw new Error("expected a redelivery");
      counts.push(message.deliveryCount ?? -1);
      await receiver.abandonMessage(message);
    }
    expect(counts).toEqual([0, 1, 2]);
    expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 300 })).toEqual([]);
    await receiver.close();

    const snapshot = harness.emulator.inspect(queue);
    expect(snapshot.active).toEqual([]);
    expect(harness.emulator.counts(queue)).toEqual({
      active: 0,
      locked: 0,
      scheduled: 0,
      deferred: 0,
      deadLettered: 1,
      deliveries: 3,
      deadLetterDeliveries: 0,
    });
    expect(snapshot.deadLettered).toHaveLength(1);
    expect(snapshot.deadLettered[0]).toMatchObject({
      messageId: "poison-1",
      deliveryCount: 3,
      deadLetterReason: "MaxDeliveryCountExceeded",
    });
    const deadLetters = harness.client.createReceiver(queue, { subQueueType: "deadLetter" });
    const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(dead?.messageId).toBe("poison-1");
    expect(dead?.deadLetterReason).toBe("MaxDeliveryCountExceeded");
    expect(dead?.deadLetterSource).toBe(queue);
    expect(dead?.sequenceNumber?.toString()).toBe("1");
    if (dead) await deadLetters.completeMessage(dead);
    await deadLetters.close();
    expect(harness.emulator.inspect(queue).deadLettered).toEqual([]);
    expect(harness.emulator.counts(queue)).toMatchObject({ deadLettered: 0, deliveries: 3, deadLetterDeliveries: 1 });
  });

  test("abandon applies propertiesToModify", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "x", applicationProperties: { attempt: 0 } });
    await sender.close();
    const receiver = harness.client.createReceiver(queue);
    const [first] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!first) throw new Error("expected a message");
    await receiver.abandonMessage(first, { attempt: 1, reason: "stripe-timeout" });
    const [second] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(second?.applicationProperties).toEqual({ attempt: 1, reason: "stripe-timeout" });
    if (second) await receiver.completeMessage(second);
    await receiver.close();
  });

  test("deadLetterMessage moves the message to the dead-letter subqueue with reason and description", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: { amountCents: -5 }, messageId: "bad-1" });
    await sender.close();
    const receiver = harness.client.createReceiver(queue);
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!message) throw new Error("expected a message");
    await receiver.deadLetterMessage(message, {
      deadLetterReason: "InvalidEvent",
      deadLetterErrorDescription: "amountCents must be > 0",
    });
    await receiver.close();
    expect(harness.emulator.inspect(queue).deadLettered[0]).toMatchObject({
      messageId: "bad-1",
      deadLetterReason: "InvalidEvent",
      deadLetterDescription: "amountCents must be > 0",
    });
    const deadLetters = harness.client.createReceiver(queue, { subQueueType: "deadLetter" });
    const peeked = await deadLetters.peekMessages(1);
    expect(peeked[0]?.deadLetterReason).toBe("InvalidEvent");
    const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(dead?.body).toEqual({ amountCents: -5 });
    expect(dead?.deadLetterErrorDescription).toBe("amountCents must be > 0");
    await deadLetters.close();
  });

  // Shaped after the Azure SDK's batchReceiver tests ("Settle deadlettered message"): the dead letter reports the
  // deliveryCount it had when it was dead-lettered, on every delivery from the subqueue, abandons there included.
  test("a dead letter keeps the deliveryCount it was dead-lettered with, however often the subqueue delivers it", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    await sender.sendMessages([{ body: "first try", messageId: "dl-0" }, { body: "second try", messageId: "dl-1" }]);
    await sender.close();
    const receiver = harness.client.createReceiver(queue);
    const [first, second] = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    if (!first || !second) throw new Error("expected two messages");
    expect([first.deliveryCount, second.deliveryCount]).toEqual([0, 0]);
    await receiver.deadLetterMessage(first, { deadLetterReason: "Test", deadLetterErrorDescription: "at once" });
    await receiver.abandonMessage(second);
    const [again] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(again?.deliveryCount).toBe(1);
    if (again) await receiver.deadLetterMessage(again, { deadLetterReason: "Test", deadLetterErrorDescription: "after one retry" });
    await receiver.close();

    const deadLetters = harness.client.createReceiver(queue, { subQueueType: "deadLetter" });
    const counts = async () => {
      const received = await deadLetters.receiveMessages(2, { maxWaitTimeInMs: 2000 });
      while (received.length < 2) received.push(...(await deadLetters.receiveMessages(2 - received.length, { maxWaitTimeInMs: 2000 })));
      return received;
    };
    const peeked = await deadLetters.peekMessages(2);
    expect(peeked.map((message) => [message.messageId, message.deliveryCount])).toEqual([["dl-0", 0], ["dl-1", 1]]);
    const delivered = await counts();
    expect(delivered.map((message) => [message.messageId, message.deliveryCount])).toEqual([["dl-0", 0], ["dl-1", 1]]);
    for (const message of delivered) await deadLetters.abandonMessage(message);
    const redelivered = await counts();
    expect(redelivered.map((message) => [message.messageId, message.deliveryCount])).toEqual([["dl-0", 0], ["dl-1", 1]]);
    for (const message of redelivered) await deadLetters.completeMessage(message);
    await deadLetters.close();
  });

  test("defer hides a message until receiveDeferredMessages asks for its sequence number", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "later", messageId: "deferred-1" });
    await sender.close();
    const receiver = harness.client.createReceiver(queue);
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!message?.sequenceNumber) throw new Error("expected a message");
    await receiver.deferMessage(message);
    expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 300 })).toEqual([]);
    expect(harness.emulator.inspect(queue).deferred.map((deferred) => deferred.messageId)).toEqual(["deferred-1"]);
    expect(harness.emulator.counts(queue)).toMatchObject({ active: 0, deferred: 1, deliveries: 1 });

    const [deferred] = await receiver.receiveDeferredMessages([message.sequenceNumber]);
    expect(deferred?.messageId).toBe("deferred-1");
    expect(deferred?.state).toBe("deferred");
    expect(deferred?.deliveryCount).toBe(1);
    if (!deferred) throw new Error("expected the deferred message");
    await receiver.abandonMessage(deferred);
    expect(harness.emulator.inspect(queue).deferred).toHaveLength(1);
    const [again] = await receiver.receiveDeferredMessages([message.sequenceNumber]);
    if (!again) throw new Error("expected the deferred message again");
    await receiver.completeMessage(again);
    expect(harness.emulator.counts(queue)).toMatchObject({ deferred: 0, locked: 0, deliveries: 3 });
    const snapshot = harness.emulator.inspect(queue);
    expect(snapshot.deferred).toEqual([]);
    expect(snapshot.locked).toEqual([]);
    expect(await errorCode(receiver.receiveDeferredMessages([message.sequenceNumber]))).toBe("MessageNotFound");
    await receiver.close();
  });

  test("a lapsed lock redelivers the message, and settling the stale copy throws MessageLockLost", async () => {
    const queue = harness.queue({ lockDurationMs: 2000 });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "slow" });
    await sender.close();
    const receiver = harness.client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
    const [stale] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!stale) throw new Error("expected a message");
    const [fresh] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5000 });
    expect(fresh?.messageId).toBe(stale.messageId);
    expect(fresh?.deliveryCount).toBe(1);
    expect(fresh?.lockToken).not.toBe(stale.lockToken);
    expect(await errorCode(receiver.completeMessage(stale))).toBe("MessageLockLost");
    if (fresh) await receiver.completeMessage(fresh);
    await receiver.close();
  });

  test("renewMessageLock extends the lock past its first expiry", async () => {
    const queue = harness.queue({ lockDurationMs: 3000 });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "renew me" });
    await sender.close();
    const receiver = harness.client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    if (!message?.lockedUntilUtc) throw new Error("expected a locked message");
    const firstExpiry = message.lockedUntilUtc.getTime();
    await sleep(1500);
    const renewed = await receiver.renewMessageLock(message);
    expect(renewed.getTime()).toBeGreaterThan(firstExpiry);
    await sleep(Math.max(0, firstExpiry - Date.now()) + 200);
    await receiver.completeMessage(message);
    await receiver.close();
    expect(harness.emulator.inspect(queue).locked).toEqual([]);
  });

  test("closing a receiver leaves its messages locked until the lock lapses, then they are redelivered", async () => {
    const queue = harness.queue({ lockDurationMs: 2000 });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "orphan" });
    await sender.close();
    const first = harness.client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
    const [held] = await first.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await first.close();
    expect(harness.emulator.inspect(queue).locked.map((message) => message.messageId)).toEqual([held?.messageId]);
    const second = harness.client.createReceiver(queue);
    const [redelivered] = await second.receiveMessages(1, { maxWaitTimeInMs: 5000 });
    expect(redelivered?.messageId).toBe(held?.messageId);
    expect(redelivered?.deliveryCount).toBe(1);
    if (redelivered) await second.completeMessage(redelivered);
    await second.close();
  });
});

describe("subscribe", () => {
  test("autoCompleteMessages completes on return and abandons on throw", async () => {
    const queue = harness.queue();
    const receiver = harness.client.createReceiver(queue);
    const deliveries: number[] = [];
    const errors: string[] = [];
    const subscription = receiver.subscribe({
      processMessage: async (message) => {
        deliveries.push(message.deliveryCount ?? -1);
        if (deliveries.length === 1) throw new Error("handler failed");
      },
      processError: async (args) => {
        errors.push(args.errorSource);
      },
    });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "once" });
    await sender.close();
    await waitFor(() => deliveries.length === 2 && harness.emulator.inspect(queue).locked.length === 0);
    await subscription.close();
    await receiver.close();
    expect(deliveries).toEqual([0, 1]);
    expect(errors).toContain("processMessageCallback");
    expect(harness.emulator.inspect(queue).active).toEqual([]);
  });

  test("without autoComplete the SDK renews the lock until maxAutoLockRenewalDurationInMs, then it lapses", async () => {
    const queue = harness.queue({ lockDurationMs: 2000 });
    const receiver = harness.client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 2500 });
    const deliveries: number[] = [];
    const subscription = receiver.subscribe(
      {
        processMessage: async (message) => {
          deliveries.push(message.deliveryCount ?? -1);
          if (deliveries.length > 1) await receiver.completeMessage(message);
        },
        processError: async () => {},
      },
      { autoCompleteMessages: false },
    );
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "unsettled" });
    await sender.close();
    await waitFor(() => deliveries.length === 1);
    const firstExpiry = harness.emulator.inspect(queue).locked[0]?.lockedUntil?.getTime() ?? 0;
    await waitFor(() => (harness.emulator.inspect(queue).locked[0]?.lockedUntil?.getTime() ?? 0) > firstExpiry, 3000, "a renewal");
    await waitFor(() => deliveries.length === 2, 8000, "the redelivery");
    await subscription.close();
    await receiver.close();
    expect(deliveries).toEqual([0, 1]);
  });
});

describe("time", () => {
  test("scheduled messages arrive at their time and cancelled ones never do", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    const at = new Date(Date.now() + 2500);
    const [keep, cancel] = await sender.scheduleMessages([{ body: "keep" }, { body: "cancel" }], at);
    if (!keep || !cancel) throw new Error("expected two sequence numbers");
    expect(harness.emulator.inspect(queue).scheduled.map((message) => message.body)).toEqual(["keep", "cancel"]);
    await sender.cancelScheduledMessages([cancel]);
    const scheduled = harness.emulator.inspect(queue).scheduled;
    expect(scheduled.map((message) => [message.sequenceNumber, message.scheduledEnqueueTime?.getTime()])).toEqual([
      [keep.toNumber(), at.getTime()],
    ]);
    const receiver = harness.client.createReceiver(queue);
    const [peeked] = await receiver.peekMessages(1);
    expect(peeked?.state).toBe("scheduled");
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 6000 });
    expect(message?.body).toBe("keep");
    expect(message?.enqueuedTimeUtc?.getTime()).toBe(at.getTime());
    // Service Bus keeps the state a scheduled message was sent with when it is received.
    expect(message?.state).toBe("scheduled");
    if (message) await receiver.completeMessage(message);
    expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 300 })).toEqual([]);
    await receiver.close();
    await sender.close();
  });

  test("expired messages go to the dead-letter subqueue with TTLExpiredException when enabled", async () => {
    const queue = harness.queue({ defaultTtlMs: 600, deadLetteringOnMessageExpiration: true });
    const sender = harness.client.createSender(queue);
    await sender.sendMessages({ body: "stale", messageId: "ttl-1" });
    await sender.close();
    await waitFor(() => harness.emulator.inspect(queue).deadLettered.length === 1, 3000);
    const snapshot = harness.emulator.inspect(queue);
    expect(snapshot.active).toEqual([]);
    expect(snapshot.deadLettered[0]).toMatchObject({ messageId: "ttl-1", deadLetterReason: "TTLExpiredException" });
  });

  test("a message's own timeToLive expires it; without dead-lettering it is dropped", async () => {
    const queue = harness.queue();
    const sender = harness.client.createSender(queue);
    await sender.sendMessages([{ body: "short", timeToLive: 400 }, { body: "long" }]);
    await sender.close();
    await waitFor(() => harness.emulator.inspect(queue).active.length === 1, 3000);
    const snapshot = harness.emulator.inspect(queue);
    expect(snapshot.active.map((message) => message.body)).toEqual(["long"]);
    expect(snapshot.deadLettered).toEqual([]);
  });
});
