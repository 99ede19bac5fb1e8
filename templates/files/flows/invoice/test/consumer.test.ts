// The consumer against the local sandbox: the real Service Bus and Stripe SDKs talk to emulators on 127.0.0.1,
// the guard on the PostgreSQL TEST_DATABASE_URL names, else in memory. Each case is one way a billing goes wrong in production; what Stripe
// invoiced is read from the emulator's ledger of invoices and invoice items.
import { ServiceBusClient, type ServiceBusSender } from "@azure/service-bus";
import {
  AdjustableClock,
  type ServiceBusEmulator,
  type StripeEmulator,
  startServiceBusEmulator,
  startStripeEmulator,
} from "chargeguard/sandbox";
import { consumerQueueRights } from "chargeguard/tuning";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUsageBillingConsumer } from "../src/consumer.js";
import type { BillingEvent } from "../src/event.js";
import { guardDatabase, runPrefix } from "./guard-database.js";

const queue = "__QUEUE__";
const currency = "__CURRENCY__";
const dayMs = 24 * 60 * 60 * 1000;

let serviceBus: ServiceBusEmulator;
let stripeEmulator: StripeEmulator;
let client: ServiceBusClient;
let sender: ServiceBusSender;
let consumer: { close(): Promise<void> };
let stripe: Stripe;
const clock = new AdjustableClock();

/** What the consumer logged: a scheduled retry is logged only once Service Bus accepted it. */
const logs: string[] = [];

beforeAll(async () => {
  // The consumer runs with exactly the rights BillingQueue deploys for it (Listen + Send on its queue).
  serviceBus = await startServiceBusEmulator({
    queues: { [queue]: { lockDurationMs: 3_000, maxDeliveryCount: 10 } },
    authorizationRules: { consumer: { queue, rights: consumerQueueRights.sasRights } },
  });
  stripeEmulator = await startStripeEmulator({ clock });
  stripe = new Stripe("rk_test_sandbox", { ...stripeEmulator.stripeConfig, maxNetworkRetries: 0 });
  client = new ServiceBusClient(serviceBus.connectionString);
  sender = client.createSender(queue);
  consumer = await startUsageBillingConsumer({
    // The guard's records: PostgreSQL when TEST_DATABASE_URL names one, else in memory (test/guard-database.ts).
    ...guardDatabase(),
    serviceBus: { connectionString: serviceBus.connectionStringFor("consumer"), queueName: queue },
    stripe: { apiKey: "rk_test_sandbox", apiBase: stripeEmulator.apiBase, timeoutMs: 1_000, maxNetworkRetries: 0 },
    clock,
    maxConcurrentCalls: 2,
    maxAutoLockRenewalDurationInMs: 60_000,
    retryPolicy: { baseDelayMs: 200, maxDelayMs: 1_000 },
    leaseMs: 3_000,
    log: (line) => logs.push(line),
  });
});

afterAll(async () => {
  await consumer?.close();
  await sender?.close();
  await client?.close();
  await serviceBus?.stop();
  await stripeEmulator?.stop();
});

let customers = 0;
/** A customer whose default payment method is `paymentMethod`, and a usage record of two lines (1,000 in total). */
async function usage(paymentMethod = "pm_card_visa"): Promise<BillingEvent> {
  customers += 1;
  const customer = await stripe.customers.create({ name: `customer ${customers}`, invoice_settings: { default_payment_method: paymentMethod } });
  return {
    usageId: `${runPrefix}-usage-${customers}`,
    stripeCustomerId: customer.id,
    day: "2026-10-14",
    currency,
    lines: [
      { amountCents: 900, description: "API calls" },
      { amountCents: 100, description: "storage" },
    ],
  };
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Nothing waiting, locked or scheduled: every message has been settled. */
function settled(): boolean {
  const snapshot = serviceBus.inspect(queue);
  return snapshot.active.length === 0 && snapshot.locked.length === 0 && snapshot.scheduled.length === 0;
}

const completions = (event: BillingEvent) => logs.filter((line) => line.startsWith(`${event.usageId}: `) && line.includes("completed")).length;
const invoicesOf = (event: BillingEvent) =>
  stripeEmulator.ledger.invoices(event.stripeCustomerId).map((invoice) => [invoice.status, invoice.amount_paid, invoice.currency]);
const itemsOf = (event: BillingEvent) => stripeEmulator.ledger.invoiceItems(event.stripeCustomerId);
const deadLettersOf = (event: BillingEvent) =>
  serviceBus.inspect(queue).deadLettered.filter((message) => JSON.stringify(message.body).includes(`"${event.usageId}"`));

describe("the invoicing consumer", () => {
  it("invoices a usage record once, items on its invoice, even when delivered again under another messageId", async () => {
    const event = await usage();
    await sender.sendMessages({ body: event, messageId: "invoice-1" });
    await sender.sendMessages({ body: event, messageId: "invoice-1-duplicate" });
    await until(() => completions(event) === 2 && settled(), "both deliveries");

    expect(invoicesOf(event)).toEqual([["paid", 1_000, currency]]);
    // Every item sits on that invoice: none is left pending for the customer's next subscription invoice.
    expect(itemsOf(event).map((item) => item.invoice)).toEqual([expect.any(String), expect.any(String)]);
    expect(deadLettersOf(event)).toEqual([]);
  });

  it("records a declined payment and never pays the invoice again, even for a duplicate send", async () => {
    const event = await usage("pm_card_chargeDeclined");
    await sender.sendMessages({ body: event, messageId: "invoice-decline-1" });
    await until(() => completions(event) === 1 && settled(), "the decline");
    await sender.sendMessages({ body: event, messageId: "invoice-decline-1-duplicate" });
    await until(() => completions(event) === 2 && settled(), "the duplicate");

    const invoices = stripeEmulator.ledger.invoices(event.stripeCustomerId);
    expect(invoices.map((invoice) => [invoice.status, invoice.attempt_count])).toEqual([["open", 1]]);
    expect(deadLettersOf(event)).toEqual([]);
  });

  it("resumes after a Stripe timeout at finalize: the same invoice, finalized and paid once", async () => {
    const event = await usage();
    const fault = stripeEmulator.faults.inject({
      action: "commitThenHang",
      method: "POST",
      path: /^\/v1\/invoices\/[^/]+\/finalize$/,
      times: 1,
    });
    await sender.sendMessages({ body: event, messageId: "invoice-timeout-1" });
    await until(() => fault.hits === 1, "the hung finalize");
    await until(() => logs.some((line) => /(retry|wait) \d+ as invoice-timeout-1:retry:\d+/.test(line)), "the scheduled retry");
    await until(() => completions(event) === 1 && settled(), "the retry");

    expect(invoicesOf(event)).toEqual([["paid", 1_000, currency]]);
    expect(itemsOf(event)).toHaveLength(2);
    expect(deadLettersOf(event)).toEqual([]);
  });

  it("dead-letters a malformed event with a reason that names the problem, and invoices nothing", async () => {
    const event = await usage();
    await sender.sendMessages([
      { body: "{ not json", messageId: "invoice-bad-json" },
      { body: { ...event, day: "14/10/2026" }, messageId: "invoice-bad-day" },
    ]);
    await until(() => serviceBus.inspect(queue).deadLettered.length >= 2 && settled(), "two dead-letters");

    const byId = new Map(serviceBus.inspect(queue).deadLettered.map((message) => [message.messageId, message]));
    const badDay = byId.get("invoice-bad-day");
    expect(byId.get("invoice-bad-json")?.deadLetterReason).toBeTruthy();
    expect(`${badDay?.deadLetterReason} ${badDay?.deadLetterDescription}`).toContain("day");
    expect(invoicesOf(event)).toEqual([]);
  });

  // Last: it moves the shared clock a day ahead.
  it("does not invoice a usage record resubmitted with a new messageId after Stripe's 24 h key window", async () => {
    const event = await usage();
    await sender.sendMessages({ body: event, messageId: "invoice-resubmit-original" });
    await until(() => completions(event) === 1 && settled(), "the first invoice");

    clock.advance(dayMs + 60 * 60 * 1000);
    await sender.sendMessages({ body: event, messageId: "invoice-resubmit-copy" });
    await until(() => completions(event) === 2 && settled(), "the resubmission");

    expect(invoicesOf(event)).toEqual([["paid", 1_000, currency]]);
    expect(deadLettersOf(event)).toEqual([]);
  });
});
