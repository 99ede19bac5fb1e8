// The seed article's three failure modes, end to end: the seeds' consumer code (ported, legacy charges.create as
// they wrote it) on the real @azure/service-bus and stripe SDKs against both emulators, counting the charges that
// reached Stripe. Each reproduces the double charge, and the contrast with a key derived from the business event
// shows the emulators tell the two apart.
import { createHash } from "node:crypto";
import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startServiceBusEmulator, startStripeEmulator, type ChargeKey, type ServiceBusEmulator, type StripeEmulator } from "../../sandbox/index.js";

interface SeedEvent {
  customer_id: string;
  stripe_customer_id: string;
  amount_cents: number;
  billing_period: string;
}

type KeyStrategy = "none" | "messageId" | "content";

interface SeedConsumerOptions {
  queue: string;
  key: KeyStrategy;
  stripeTimeoutMs?: number;
  stripeMaxNetworkRetries?: number;
  maxAutoLockRenewalDurationInMs?: number;
}

let serviceBus: ServiceBusEmulator;
let stripeEmulator: StripeEmulator;
let admin: ServiceBusClient;
let stripeAdmin: Stripe;
const running: { close(): Promise<void> }[] = [];
let queueCount = 0;

beforeAll(async () => {
  serviceBus = await startServiceBusEmulator({ queues: {} });
  stripeEmulator = await startStripeEmulator();
  admin = new ServiceBusClient(serviceBus.connectionString);
  stripeAdmin = new Stripe("rk_test_sandbox", { ...stripeEmulator.stripeConfig, maxNetworkRetries: 0 });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((consumer) => consumer.close()));
  stripeEmulator.faults.clear();
  serviceBus.faults.clear();
});
afterAll(async () => {
  await admin.close();
  await serviceBus.stop();
  await stripeEmulator.stop();
});

/** The same business charge: customer plus what the seeds put in the description (the billing period). */
const sameBill: ChargeKey = (charge) => `${charge.customer} ${charge.description}`;

async function setUp(queueOptions: { lockDurationMs: number; maxDeliveryCount: number }) {
  const queue = `seed-${++queueCount}`;
  serviceBus.addQueue(queue, queueOptions);
  const customer = await stripeAdmin.customers.create({ source: "tok_visa" });
  const event: SeedEvent = { customer_id: `c-${queueCount}`, stripe_customer_id: customer.id, amount_cents: 4900, billing_period: "2026-10" };
  const chargesFor = () => stripeEmulator.ledger.charges(customer.id).filter((charge) => charge.status === "succeeded");
  const duplicates = () => stripeEmulator.ledger.duplicateCharges(sameBill).filter((group) => group.charges[0]?.customer === customer.id);
  return { queue, event, chargesFor, duplicates };
}

/**
 * The seeds' consumer: peek-lock, charge, then complete; on a Stripe connection error or timeout, abandon (seed 3's
 * `except stripe.error.Timeout: receiver.abandon_message(msg)`). Returns the errors its receiver reported.
 */
function startSeedConsumer(options: SeedConsumerOptions): { errors: string[] } {
  const stripe = new Stripe("rk_test_sandbox", {
    ...stripeEmulator.stripeConfig,
    timeout: options.stripeTimeoutMs ?? 80_000,
    maxNetworkRetries: options.stripeMaxNetworkRetries ?? 2,
  });
  const client = new ServiceBusClient(serviceBus.connectionString);
  const receiver = client.createReceiver(options.queue, { maxAutoLockRenewalDurationInMs: options.maxAutoLockRenewalDurationInMs ?? 0 });
  const errors: string[] = [];
  const idempotencyKey = (message: ServiceBusReceivedMessage, event: SeedEvent): string | undefined => {
    switch (options.key) {
      case "none":
        return undefined;
      case "messageId":
        return `charge-${String(message.messageId)}`; // seed 2: WRONG, a resubmitted message has a new id
      case "content":
        return createHash("sha256").update(`${event.customer_id}:${event.billing_period}:servicebus-billing`).digest("hex").slice(0, 32);
    }
  };
  const subscription = receiver.subscribe(
    {
      async processMessage(message) {
        const event = message.body as SeedEvent;
        const key = idempotencyKey(message, event);
        try {
          await stripe.charges.create(
            { amount: event.amount_cents, currency: "usd", customer: event.stripe_customer_id, description: `Usage billing for ${event.billing_period}` },
            key === undefined ? {} : { idempotencyKey: key },
          );
        } catch (error) {
          if (error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeAPIError) {
            errors.push(`stripe: ${error.type}`);
            await receiver.abandonMessage(message); // WRONG: immediate redelivery, the charge may exist
            return;
          }
          throw error;
        }
        await receiver.completeMessage(message);
      },
      async processError(args) {
        errors.push(`${args.errorSource}: ${(args.error as { code?: string }).code ?? args.error.message}`);
      },
    },
    { autoCompleteMessages: false, maxConcurrentCalls: 1 },
  );
  running.push({
    async close() {
      await subscription.close();
      await receiver.close();
      await client.close();
    },
  });
  return { errors };
}

async function send(queue: string, event: SeedEvent, messageId?: string): Promise<void> {
  const sender = admin.createSender(queue);
  await sender.sendMessages({ body: event, contentType: "application/json", ...(messageId ? { messageId } : {}) });
  await sender.close();
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 25 },
  );
}

const drained = (queue: string) => () => {
  const snapshot = serviceBus.inspect(queue);
  return snapshot.active.length + snapshot.locked.length + snapshot.scheduled.length === 0;
};

describe("seed failure mode 1: the lock lapses while Stripe is slow", () => {
  it("no idempotency key: the competing replica charges again (2 charges), the first learns MessageLockLost after", async () => {
    const { queue, event, chargesFor, duplicates } = await setUp({ lockDurationMs: 1_000, maxDeliveryCount: 10 });
    serviceBus.faults.inject({ operation: "renewLock", action: "serverBusy", queue });
    stripeEmulator.faults.inject({ path: "/v1/charges", method: "POST", action: "latency", ms: 3_000, times: 1 });
    const first = startSeedConsumer({ queue, key: "none", maxAutoLockRenewalDurationInMs: 60_000 });
    const second = startSeedConsumer({ queue, key: "none", maxAutoLockRenewalDurationInMs: 60_000 });
    await send(queue, event);
    await waitFor(() => chargesFor().length === 2 && drained(queue)(), "two charges and a drained queue");
    await waitFor(() => [...first.errors, ...second.errors].some((error) => error.includes("MessageLockLost")), "MessageLockLost");
    expect(duplicates()).toHaveLength(1);
    expect(serviceBus.inspect(queue).deadLettered).toHaveLength(0);
  });

  it("contrast, a key from the business event: the replica meets 409 or the replay, 1 charge", async () => {
    const { queue, event, chargesFor } = await setUp({ lockDurationMs: 1_000, maxDeliveryCount: 10 });
    serviceBus.faults.inject({ operation: "renewLock", action: "serverBusy", queue });
    stripeEmulator.faults.inject({ path: "/v1/charges", method: "POST", action: "latency", ms: 3_000, times: 1 });
    const first = startSeedConsumer({ queue, key: "content", maxAutoLockRenewalDurationInMs: 60_000 });
    const second = startSeedConsumer({ queue, key: "content", maxAutoLockRenewalDurationInMs: 60_000 });
    await send(queue, event);
    await waitFor(drained(queue), "a drained queue");
    // The lock did lapse and the message did move to the other replica: only the key kept the second charge out.
    await waitFor(() => [...first.errors, ...second.errors].some((error) => error.includes("MessageLockLost")), "MessageLockLost");
    expect(chargesFor()).toHaveLength(1);
  });
});

describe("seed failure mode 2: a dead-lettered message resubmitted with a new messageId", () => {
  for (const [key, expected] of [["messageId", 2], ["content", 1]] as const) {
    it(`${key} key: ${expected === 2 ? "the resubmission is a new key, 2 charges" : "the resubmission replays, 1 charge"}`, async () => {
      const { queue, event, chargesFor } = await setUp({ lockDurationMs: 30_000, maxDeliveryCount: 2 });
      // Stripe commits every attempt of the original message but its answers never arrive (the SDK's own retry
      // after a reset connection is dropped too): two deliveries end in abandon, then the dead-letter queue.
      let resubmitted = false;
      stripeEmulator.faults.inject({ path: "/v1/charges", method: "POST", action: "commitThenDrop", when: () => !resubmitted });
      startSeedConsumer({ queue, key, stripeMaxNetworkRetries: 0 });
      await send(queue, event, "usage-c-original");
      await waitFor(() => serviceBus.inspect(queue).deadLettered.length === 1, "the dead-lettered message");
      expect(chargesFor()).toHaveLength(1);

      // The operator's tooling: read the dead letter, send a NEW message with its body, complete the dead letter.
      resubmitted = true;
      const deadLetters = admin.createReceiver(queue, { subQueueType: "deadLetter" });
      const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
      expect(dead?.deadLetterReason).toBe("MaxDeliveryCountExceeded");
      await send(queue, dead?.body as SeedEvent);
      await deadLetters.completeMessage(dead!);
      await deadLetters.close();
      await waitFor(drained(queue), "the resubmitted message to be completed");
      expect(chargesFor()).toHaveLength(expected);
    });
  }
});

describe("seed failure mode 3: abandon after a Stripe timeout", () => {
  for (const action of ["commitThenHang", "commitThenDrop"] as const) {
    it(`${action}, no key: Stripe charged, the consumer abandons, the redelivery charges again (2 charges)`, async () => {
      const { queue, event, chargesFor, duplicates } = await setUp({ lockDurationMs: 30_000, maxDeliveryCount: 10 });
      // commitThenDrop twice: the SDK retries a reset connection once (same key, replayed) before giving up.
      stripeEmulator.faults.inject({ path: "/v1/charges", method: "POST", action, times: action === "commitThenDrop" ? 2 : 1 });
      const consumer = startSeedConsumer({ queue, key: "none", stripeTimeoutMs: 1_500, stripeMaxNetworkRetries: 0 });
      await send(queue, event);
      await waitFor(() => chargesFor().length === 2 && drained(queue)(), "two charges and a drained queue");
      expect(consumer.errors).toEqual(["stripe: StripeConnectionError"]);
      expect(duplicates()[0]?.charges).toHaveLength(2);
    });
  }

  it("contrast, commitThenHang with a key from the business event: the redelivery replays, 1 charge", async () => {
    const { queue, event, chargesFor } = await setUp({ lockDurationMs: 30_000, maxDeliveryCount: 10 });
    stripeEmulator.faults.inject({ path: "/v1/charges", method: "POST", action: "commitThenHang", times: 1 });
    const consumer = startSeedConsumer({ queue, key: "content", stripeTimeoutMs: 1_500, stripeMaxNetworkRetries: 0 });
    await send(queue, event);
    await waitFor(drained(queue), "a drained queue");
    expect(consumer.errors).toEqual(["stripe: StripeConnectionError"]);
    expect(chargesFor()).toHaveLength(1);
  });
});
