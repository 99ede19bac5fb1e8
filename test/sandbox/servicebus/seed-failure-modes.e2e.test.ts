// The Service Bus half of the seeds' three double-charge failure modes, reproduced with the real SDK against the
// emulator. A "charge counter" stands where a naive consumer would call Stripe; the end-to-end versions with the
// Stripe emulator live with the proving ground.
import type { ProcessErrorArgs, ServiceBusReceivedMessage } from "@azure/service-bus";
import { isServiceBusError } from "@azure/service-bus";
import { afterAll, beforeAll, expect, test } from "vitest";
import { sleep, startHarness, waitFor } from "./support.js";

let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  harness.emulator.faults.clear();
  await harness.close();
});

/** Charges per event, keyed by customer: what a consumer without an idempotency guard would bill. */
class ChargeCounter {
  readonly charges = new Map<string, number>();
  charge(event: { customerId: string }): void {
    this.charges.set(event.customerId, (this.charges.get(event.customerId) ?? 0) + 1);
  }
  count(customerId: string): number {
    return this.charges.get(customerId) ?? 0;
  }
}

const event = { customerId: "cus_seed", billingPeriod: "2026-11", amountCents: 4200, currency: "usd" };

test("1: the lock lapses while the handler is slow and renewal answers ServerBusy, so a competitor charges again", async () => {
  const queue = harness.queue({ lockDurationMs: 2000 });
  const counter = new ChargeCounter();
  harness.emulator.faults.inject({ operation: "renewLock", action: "serverBusy", queue });
  const errors: ProcessErrorArgs[] = [];
  const slowReceiver = harness.client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 60_000 });
  const slow = slowReceiver.subscribe(
    {
      processMessage: async (message) => {
        counter.charge(message.body as typeof event);
        await sleep(3500); // Stripe is slow: longer than the 2 s lock
      },
      processError: async (args) => {
        errors.push(args);
      },
    },
    { autoCompleteMessages: true },
  );
  const sender = harness.client.createSender(queue);
  await sender.sendMessages({ body: event, messageId: "usage-1" });
  await sender.close();
  await waitFor(() => counter.count(event.customerId) === 1);

  const competitorReceiver = harness.client.createReceiver(queue);
  const competitorDeliveries: number[] = [];
  const competitor = competitorReceiver.subscribe({
    processMessage: async (message) => {
      competitorDeliveries.push(message.deliveryCount ?? -1);
      counter.charge(message.body as typeof event);
    },
    processError: async () => {},
  });
  await waitFor(() => counter.count(event.customerId) === 2, 6000, "the competitor's charge");
  await waitFor(() => errors.some((args) => args.errorSource === "complete"), 6000, "the slow handler's complete");
  await slow.close();
  await competitor.close();
  await slowReceiver.close();
  await competitorReceiver.close();

  expect(counter.count(event.customerId)).toBe(2);
  expect(competitorDeliveries).toEqual([1]);
  const renewError = errors.find((args) => args.errorSource === "renewLock")?.error;
  expect(isServiceBusError(renewError) && renewError.code).toBe("ServiceBusy");
  const completeError = errors.find((args) => args.errorSource === "complete")?.error;
  expect(isServiceBusError(completeError) && completeError.code).toBe("MessageLockLost");
  const snapshot = harness.emulator.inspect(queue);
  expect(snapshot.active).toEqual([]);
  expect(snapshot.locked).toEqual([]);
});

test("2: a dead-lettered event resubmitted with a new messageId is a new message that duplicate detection lets through", async () => {
  const queue = harness.queue({ duplicateDetectionWindowMs: 600_000 });
  const counter = new ChargeCounter();
  const sender = harness.client.createSender(queue);
  await sender.sendMessages({ body: event, messageId: "usage-2" });

  // First attempt: charged, then the consumer fails after the charge and dead-letters the event.
  const receiver = harness.client.createReceiver(queue);
  const [original] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
  if (!original) throw new Error("expected the event");
  counter.charge(original.body as typeof event);
  await receiver.deadLetterMessage(original, {
    deadLetterReason: "PostChargeFailure",
    deadLetterErrorDescription: "database write failed after the charge",
  });

  // An operator's DLQ tool resubmits with a fresh id (as most do), then removes the dead letter.
  const deadLetters = harness.client.createReceiver(queue, { subQueueType: "deadLetter" });
  const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 2000 });
  if (!dead) throw new Error("expected the dead letter");
  await sender.sendMessages({ body: dead.body, messageId: "usage-2-resubmitted" });
  await deadLetters.completeMessage(dead);
  // The same id again within the window is dropped: only a new id gets through.
  await sender.sendMessages({ body: dead.body, messageId: "usage-2" });
  await sender.close();

  const [resubmitted] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
  if (!resubmitted) throw new Error("expected the resubmitted event");
  counter.charge(resubmitted.body as typeof event);
  await receiver.completeMessage(resubmitted);
  expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 300 })).toEqual([]);
  await receiver.close();
  await deadLetters.close();

  expect(counter.count(event.customerId)).toBe(2);
  expect(resubmitted.messageId).toBe("usage-2-resubmitted");
  expect(resubmitted.messageId).not.toBe(original.messageId);
  expect(resubmitted.sequenceNumber?.greaterThan(original.sequenceNumber ?? 0)).toBe(true);
  expect(resubmitted.deliveryCount).toBe(0);
  expect(resubmitted.body).toEqual(original.body);
});

test("3: abandon after a timeout redelivers at once with deliveryCount + 1, and the retry charges again", async () => {
  const lockDurationMs = 30_000;
  const queue = harness.queue({ lockDurationMs });
  const counter = new ChargeCounter();
  const deliveries: Array<{ deliveryCount: number; at: number }> = [];
  const receiver = harness.client.createReceiver(queue);
  const subscription = receiver.subscribe({
    processMessage: async (message: ServiceBusReceivedMessage) => {
      deliveries.push({ deliveryCount: message.deliveryCount ?? -1, at: Date.now() });
      counter.charge(message.body as typeof event);
      // The first Stripe call "times out" after the charge was made: the handler throws, the SDK abandons.
      if (deliveries.length === 1) throw new Error("StripeConnectionError: timeout after the charge");
    },
    processError: async () => {},
  });
  const sender = harness.client.createSender(queue);
  await sender.sendMessages({ body: event, messageId: "usage-3" });
  await sender.close();
  await waitFor(() => deliveries.length === 2 && harness.emulator.inspect(queue).locked.length === 0);
  await subscription.close();
  await receiver.close();

  expect(counter.count(event.customerId)).toBe(2);
  expect(deliveries.map((delivery) => delivery.deliveryCount)).toEqual([0, 1]);
  const [first, second] = deliveries;
  // Redelivered at once: long before the lock could have lapsed, so there is no backoff at all.
  expect((second?.at ?? Infinity) - (first?.at ?? 0)).toBeLessThan(lockDurationMs / 2);
  expect(harness.emulator.inspect(queue).active).toEqual([]);
});
