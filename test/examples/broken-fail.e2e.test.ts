// Each broken example, run with the real SDKs against the sandbox, shows the failure its seed describes under the
// fault that triggers it (examples/broken/index.ts). Small, direct reproductions; the proving ground runs them at scale.
import { PGlite } from "@electric-sql/pglite";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ConsumerContext, RunningConsumer } from "../../runtime/consumer/consumer-contract.js";
import type { UsageEvent } from "../../runtime/event/usage-event.js";
import { brokenExamples } from "../../examples/broken/index.js";
import { killAt } from "../support/kill-at.js";
import { AdjustableClock } from "../../sandbox/clock.js";
import { type ServiceBusEmulator, startServiceBusEmulator } from "../../sandbox/servicebus/index.js";
import { type StripeEmulator, startStripeEmulator } from "../../sandbox/stripe/index.js";

const apiKey = "rk_test_sandbox";
const dayMs = 24 * 60 * 60 * 1000;
let serviceBus: ServiceBusEmulator;
let stripeEmulator: StripeEmulator;
let stripe: Stripe;
let client: ServiceBusClient;
let pglite: PGlite | undefined;
let scratchDatabase: { url: string; drop(): Promise<void> } | undefined;
const clock = new AdjustableClock();
const running = new Set<RunningConsumer>();

beforeAll(async () => {
  serviceBus = await startServiceBusEmulator({ queues: {} });
  stripeEmulator = await startStripeEmulator({ clock });
  stripe = new Stripe(apiKey, { ...stripeEmulator.stripeConfig, maxNetworkRetries: 0 });
  client = new ServiceBusClient(serviceBus.connectionString);
  // A throw-away database on the real PostgreSQL server under `npm test`; embedded PGlite otherwise.
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl === undefined) pglite = new PGlite();
  else scratchDatabase = await (await import("../runtime/guard/databases.js")).createScratchDatabase(serverUrl);
});

afterAll(async () => {
  for (const consumer of running) await bounded(consumer.close());
  await client?.close();
  await serviceBus?.stop();
  await stripeEmulator?.stop();
  await pglite?.close();
  await scratchDatabase?.drop();
});

async function bounded(promise: Promise<unknown>, ms = 5_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

let queues = 0;
/** A fresh queue and customer for one example. */
async function setUp(queueOptions: { lockDurationMs?: number; maxDeliveryCount?: number } = {}) {
  queues += 1;
  const queueName = `broken-${queues}`;
  serviceBus.addQueue(queueName, { lockDurationMs: 5_000, maxDeliveryCount: 10, ...queueOptions });
  const customer = await stripe.customers.create({ name: queueName });
  const event: UsageEvent = {
    customerId: `customer-${queues}`,
    stripeCustomerId: customer.id,
    paymentMethodId: "pm_card_visa",
    billingPeriod: "2026-10",
    amountCents: 2_500,
    currency: "usd",
  };
  const sender = client.createSender(queueName);
  const context = (overrides: Partial<ConsumerContext> = {}): ConsumerContext => ({
    serviceBus: { connectionString: serviceBus.connectionString, queueName },
    stripe: { apiKey, apiBase: stripeEmulator.apiBase, maxNetworkRetries: 0 },
    ...(pglite ? { pglite } : { databaseUrl: scratchDatabase?.url }),
    clock,
    log: () => {},
    ...overrides,
  });
  return { queueName, event, sender, context };
}

async function start(name: string, context: ConsumerContext): Promise<RunningConsumer> {
  const example = brokenExamples.find((candidate) => candidate.name === name);
  if (!example) throw new Error(`no broken example ${name}`);
  const consumer = await (await example.load()).startConsumer(context);
  running.add(consumer);
  return consumer;
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 25 },
  );
}

const succeeded = (customer: string) => stripeEmulator.ledger.paymentIntents(customer).filter((intent) => intent.status === "succeeded");
const attempts = (customer: string) => stripeEmulator.ledger.paymentIntents(customer);
const settled = (queueName: string) => {
  const snapshot = serviceBus.inspect(queueName);
  return snapshot.active.length === 0 && snapshot.locked.length === 0 && snapshot.scheduled.length === 0;
};

describe("each broken example shows its seed's failure", () => {
  it("no-idempotency-key: a replica killed after the charge, the redelivery charges again", async () => {
    const { event, sender, context, queueName } = await setUp();
    const kill = killAt("afterStripe");
    const first = await start("no-idempotency-key", context({ hook: kill.hook }));
    await sender.sendMessages({ body: event, messageId: "no-key-1" });
    await kill.arrived;
    await bounded(first.close());
    serviceBus.faults.expireLock(queueName);
    await start("no-idempotency-key", context());
    await until(() => succeeded(event.stripeCustomerId).length === 2 && settled(queueName), "the second charge");
  });

  it("message-id-key: a producer duplicate (same event, new messageId) is charged twice", async () => {
    const { event, sender, context, queueName } = await setUp();
    await start("message-id-key", context());
    await sender.sendMessages([
      { body: event, messageId: "message-id-1" },
      { body: event, messageId: "message-id-1-resent" },
    ]);
    await until(() => succeeded(event.stripeCustomerId).length === 2 && settled(queueName), "two charges");
  });

  it("random-uuid-key: a replica killed after the charge, the redelivery draws a new key and charges again", async () => {
    const { event, sender, context, queueName } = await setUp();
    const kill = killAt("afterStripe");
    const first = await start("random-uuid-key", context({ hook: kill.hook }));
    await sender.sendMessages({ body: event, messageId: "uuid-1" });
    await kill.arrived;
    await bounded(first.close());
    serviceBus.faults.expireLock(queueName);
    await start("random-uuid-key", context());
    await until(() => succeeded(event.stripeCustomerId).length === 2 && settled(queueName), "the second charge");
  });

  it("abandon-on-timeout: Stripe commits, the answer never comes, the abandon redelivers and charges again", async () => {
    const { event, sender, context, queueName } = await setUp();
    stripeEmulator.faults.inject({
      action: "commitThenHang",
      method: "POST",
      path: "/v1/payment_intents",
      times: 1,
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    await start("abandon-on-timeout", context({ stripe: { ...context().stripe, timeoutMs: 500 } }));
    await sender.sendMessages({ body: event, messageId: "timeout-1" });
    await until(() => succeeded(event.stripeCustomerId).length === 2 && settled(queueName), "the second charge");
  });

  it("abandon-on-decline: the declined card is tried on every delivery until the message is dead-lettered", async () => {
    const { event, sender, context, queueName } = await setUp({ maxDeliveryCount: 4 });
    await start("abandon-on-decline", context());
    await sender.sendMessages({ body: { ...event, paymentMethodId: "pm_card_chargeDeclined" }, messageId: "decline-1" });
    await until(() => serviceBus.inspect(queueName).deadLettered.length === 1, "the dead-letter");
    expect(attempts(event.stripeCustomerId)).toHaveLength(4);
    expect(succeeded(event.stripeCustomerId)).toHaveLength(0);
  });

  it("complete-before-record: killed before the record commits, the event sent again a day later is charged again", async () => {
    const { event, sender, context, queueName } = await setUp();
    const kill = killAt("afterRecord");
    const first = await start("complete-before-record", context({ hook: kill.hook }));
    await sender.sendMessages({ body: event, messageId: "record-1" });
    await kill.arrived;
    await bounded(first.close());
    expect(settled(queueName)).toBe(true); // completed: nothing will redeliver it

    // The seed's nightly reconciliation re-sends usage with no billing record, past Stripe's 24 h key window.
    clock.advance(dayMs + 60 * 60 * 1000);
    await start("complete-before-record", context());
    await sender.sendMessages({ body: event, messageId: "record-1-reconciled" });
    await until(() => succeeded(event.stripeCustomerId).length === 2 && settled(queueName), "the late second charge");
  });

  it("short-renewal-deadline: renewal stops at the lock duration, the lock lapses mid-charge, a second charge", async () => {
    const { event, sender, context, queueName } = await setUp({ lockDurationMs: 2_000 });
    stripeEmulator.faults.inject({
      action: "latency",
      ms: 6_000,
      method: "POST",
      path: "/v1/payment_intents",
      times: 1,
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    await start("short-renewal-deadline", context({ maxAutoLockRenewalDurationInMs: 2_000 }));
    await sender.sendMessages({ body: event, messageId: "renewal-1" });
    await until(() => succeeded(event.stripeCustomerId).length === 2 && settled(queueName), "the second charge");
  });

  it("receive-and-delete: a replica killed before the charge loses the billing for good", async () => {
    const { event, sender, context, queueName } = await setUp();
    const kill = killAt("afterClaim");
    const first = await start("receive-and-delete", context({ hook: kill.hook }));
    await sender.sendMessages({ body: event, messageId: "delete-1" });
    await kill.arrived;
    await bounded(first.close());
    await start("receive-and-delete", context());
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const snapshot = serviceBus.inspect(queueName);
    expect([...snapshot.active, ...snapshot.locked, ...snapshot.deadLettered]).toEqual([]);
    expect(attempts(event.stripeCustomerId)).toEqual([]);
  });
});

describe("each broken example of another flow shows its failure", () => {
  /** A replica killed after Stripe answered: the next replica gets the message once its lock lapses. */
  async function killedAfterStripeThenRedelivered(name: string, body: object, queueName: string, sender: ReturnType<ServiceBusClient["createSender"]>, context: (overrides?: Partial<ConsumerContext>) => ConsumerContext) {
    const kill = killAt("afterStripe");
    const first = await start(name, context({ hook: kill.hook }));
    await sender.sendMessages({ body, messageId: `${name}-1` });
    await kill.arrived;
    await bounded(first.close());
    serviceBus.faults.expireLock(queueName);
    await start(name, context());
  }

  it("charge-random-key: a replica killed after the charge, the redelivery's new key charges the default card again", async () => {
    const { event, sender, context, queueName } = await setUp();
    const customer = await stripe.customers.create({ name: queueName, source: "pm_card_visa" });
    const { paymentMethodId: _card, ...charge } = { ...event, stripeCustomerId: customer.id };
    await killedAfterStripeThenRedelivered("charge-random-key", charge, queueName, sender, context);
    const paid = () => stripeEmulator.ledger.charges(customer.id).filter((entry) => entry.status === "succeeded");
    await until(() => paid().length === 2 && settled(queueName), "the second charge");
    expect(paid().map((entry) => entry.amount)).toEqual([event.amountCents, event.amountCents]);
  });

  it("invoice-per-delivery-keys: a replica killed after pay, the redelivery creates and pays a second invoice", async () => {
    const { event, sender, context, queueName } = await setUp();
    const customer = await stripe.customers.create({ name: queueName, source: "pm_card_visa" });
    const body = { usageId: `usage-${queueName}`, stripeCustomerId: customer.id, day: "2026-10-15", currency: "usd", lines: [{ amountCents: event.amountCents, description: "usage" }] };
    await killedAfterStripeThenRedelivered("invoice-per-delivery-keys", body, queueName, sender, context);
    const paid = () => stripeEmulator.ledger.invoices(customer.id).filter((invoice) => invoice.status === "paid");
    await until(() => paid().length === 2 && settled(queueName), "the second paid invoice");
    expect(paid().map((invoice) => invoice.amount_paid)).toEqual([event.amountCents, event.amountCents]);
  });

  it("meter-event-no-identifier: a replica killed after the event, the redelivery is counted again in the meter's summary", async () => {
    const { event, sender, context, queueName } = await setUp();
    const meter = await stripe.billing.meters.create({ display_name: "Billed usage", event_name: "billed_usage", default_aggregation: { formula: "sum" } });
    const now = Math.floor(clock.now() / 1000);
    const body = { usageId: `usage-${queueName}`, stripeCustomerId: event.stripeCustomerId, quantity: 7, timestamp: now - 60 };
    await killedAfterStripeThenRedelivered("meter-event-no-identifier", body, queueName, sender, context);
    const counted = () => stripeEmulator.ledger.meterEvents().filter((sent) => sent.payload.stripe_customer_id === event.stripeCustomerId);
    await until(() => counted().length === 2 && settled(queueName), "the second meter event");
    // What Stripe bills from: the meter's summary holds the usage twice.
    const summaries = await stripe.billing.meters.listEventSummaries(meter.id, { customer: event.stripeCustomerId, start_time: now - 3_600, end_time: now + 60 });
    expect(summaries.data[0]?.aggregated_value).toBe(14);
  });
});
