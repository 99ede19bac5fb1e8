// The identity a team chose, run: two consumers scaffolded by `scaffoldConsumer` (the default, keyed on the usage
// event, and one `--billing-identity customer-period`), their own src/consumer.ts and src/event.ts started against the
// sandbox's Service Bus and Stripe emulators with the real SDKs. Keyed on the usage event, two usage events of one
// customer in one month are two charges and one event sent twice is one; keyed on customer and period, the second
// event of the month is dead-lettered BillingRecordMismatch, naming the field that differs.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServiceBusEmulator, type StripeEmulator, startServiceBusEmulator, startStripeEmulator } from "../../sandbox/index.js";
import { sendSandboxEvent } from "../../sandbox/send-event.js";
import { type BillingIdentityChoice, scaffoldConsumer } from "../../templates/index.js";

// Inside the checkout (.tmp is ignored by git), so the generated sources resolve zod and chargeguard as the tests do.
const checkout = path.resolve(import.meta.dirname, "../..");
let scratch: string;
let serviceBus: ServiceBusEmulator;
let stripeEmulator: StripeEmulator;
let stripe: Stripe;
let client: ServiceBusClient;
const consumers: { close(): Promise<void> }[] = [];

interface GeneratedConsumer {
  startUsageBillingConsumer(options: Record<string, unknown>): Promise<{ close(): Promise<void> }>;
}

async function scaffoldAndStart(queue: string, billingIdentity?: BillingIdentityChoice): Promise<void> {
  const { directory } = await scaffoldConsumer({ directory: path.join(scratch, queue), name: queue, queue, ...(billingIdentity ? { billingIdentity } : {}) });
  const generated = (await import(path.join(directory, "src", "consumer.ts"))) as GeneratedConsumer;
  consumers.push(
    await generated.startUsageBillingConsumer({
      inMemory: true,
      serviceBus: { connectionString: serviceBus.connectionString, queueName: queue },
      stripe: { apiKey: "rk_test_sandbox", apiBase: stripeEmulator.apiBase, timeoutMs: 2_000, maxNetworkRetries: 0 },
      log: () => undefined,
    }),
  );
}

beforeAll(async () => {
  await mkdir(path.join(checkout, ".tmp"), { recursive: true });
  scratch = await mkdtemp(path.join(checkout, ".tmp", "identity-"));
  serviceBus = await startServiceBusEmulator({ queues: { "per-event": { lockDurationMs: 5_000 }, "per-period": { lockDurationMs: 5_000 } } });
  stripeEmulator = await startStripeEmulator();
  stripe = new Stripe("rk_test_sandbox", { ...stripeEmulator.stripeConfig, maxNetworkRetries: 0 });
  client = new ServiceBusClient(serviceBus.connectionString);
  await scaffoldAndStart("per-event");
  await scaffoldAndStart("per-period", "customer-period");
}, 120_000);

afterAll(async () => {
  for (const consumer of consumers) await consumer.close();
  await client?.close();
  await serviceBus?.stop();
  await stripeEmulator?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function send(queue: string, messages: { body: object; messageId: string }[]): Promise<void> {
  const sender = client.createSender(queue);
  try {
    for (const message of messages) await sender.sendMessages(message);
  } finally {
    await sender.close();
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const settled = (queue: string) => {
  const snapshot = serviceBus.inspect(queue);
  return snapshot.active.length === 0 && snapshot.locked.length === 0 && snapshot.scheduled.length === 0;
};

async function usage(customerId: string, amountCents: number) {
  const customer = await stripe.customers.create({ name: customerId });
  return { customerId, stripeCustomerId: customer.id, paymentMethodId: "pm_card_visa", billingPeriod: "2026-11", amountCents, currency: "usd" };
}

describe("the billing identity a scaffolded consumer was generated with", () => {
  it("usage-event (the default): two usage events of one customer in one month are two charges, one event sent twice is one", async () => {
    const first = { usageId: "usage-1", ...(await usage("acme-1", 1_200)) };
    const second = { ...first, usageId: "usage-2", amountCents: 700 };
    await send("per-event", [
      { body: first, messageId: "event-1" },
      { body: second, messageId: "event-2" },
      // The same event again (a producer's resend: another message id, the same usage).
      { body: first, messageId: "event-1-resent" },
    ]);
    await until(() => stripeEmulator.ledger.paymentIntents(first.stripeCustomerId).length >= 2 && settled("per-event"), "two charges");
    const charged = stripeEmulator.ledger.paymentIntents(first.stripeCustomerId);
    expect(charged.map((intent) => [intent.status, intent.amount]).sort()).toEqual([["succeeded", 1_200], ["succeeded", 700]].sort());
    expect(serviceBus.inspect("per-event").deadLettered).toEqual([]);
  });

  it("customer-period: the month's second event is one billing, dead-lettered BillingRecordMismatch naming the amount", async () => {
    const first = await usage("acme-2", 1_200);
    await send("per-period", [
      { body: first, messageId: "period-1" },
      { body: { ...first, amountCents: 700 }, messageId: "period-2" },
    ]);
    await until(() => serviceBus.inspect("per-period").deadLettered.length === 1 && settled("per-period"), "the second event's dead letter");
    expect(stripeEmulator.ledger.paymentIntents(first.stripeCustomerId).map((intent) => intent.amount)).toEqual([1_200]);
    const [dead] = serviceBus.inspect("per-period").deadLettered;
    expect(dead?.deadLetterReason).toBe("BillingRecordMismatch");
    expect(dead?.deadLetterDescription).toMatch(/payload.amount 1200 -> 700/);
  });

  it("usage-event: chargeguard sandbox send --usage-id puts on the queue what that consumer bills, once per usage id", async () => {
    const options = {
      connectionString: serviceBus.connectionString, queue: "per-event", stripeApiBase: stripeEmulator.apiBase, stripeApiKey: "rk_test_sandbox",
      customerId: "acme-3", paymentMethodId: "pm_card_visa", billingPeriod: "2026-11", amountCents: 2_500, currency: "usd",
    };
    const sent = await sendSandboxEvent({ ...options, usageId: "usage-a" });
    expect(sent.event).toMatchObject({ usageId: "usage-a", customerId: "acme-3" });
    const stripeCustomerId = sent.event.stripeCustomerId;
    await sendSandboxEvent({ ...options, usageId: "usage-a", stripeCustomerId });
    await sendSandboxEvent({ ...options, usageId: "usage-b", stripeCustomerId });
    await until(() => stripeEmulator.ledger.paymentIntents(stripeCustomerId).length >= 2 && settled("per-event"), "the usage ids' charges");
    expect(stripeEmulator.ledger.paymentIntents(stripeCustomerId)).toHaveLength(2);
    expect(serviceBus.inspect("per-event").deadLettered).toEqual([]);
  });
});
