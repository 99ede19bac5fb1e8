// The consumer against the local sandbox: the real Service Bus and Stripe SDKs talk to emulators on 127.0.0.1,
// the guard on the PostgreSQL TEST_DATABASE_URL names, else in memory. Each case is one way a usage gets counted twice or lost in production;
// what Stripe counts is read back through the meter's event summaries, as an operator would.
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
import { type BillingEvent, meterEventName } from "../src/event.js";
import { guardDatabase, runPrefix } from "./guard-database.js";

const queue = "usage-billing";
const dayMs = 24 * 60 * 60 * 1000;

let serviceBus: ServiceBusEmulator;
let stripeEmulator: StripeEmulator;
let client: ServiceBusClient;
let sender: ServiceBusSender;
let consumer: { close(): Promise<void> };
let stripe: Stripe;
let meter: Stripe.Billing.Meter;
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
  meter = await stripe.billing.meters.create({
    display_name: "Billed usage",
    event_name: meterEventName,
    default_aggregation: { formula: "sum" },
  });
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
async function usage(quantity = 3): Promise<BillingEvent> {
  customers += 1;
  const customer = await stripe.customers.create({ name: `customer ${customers}` });
  return {
    usageId: `${runPrefix}-usage-${customers}`,
    stripeCustomerId: customer.id,
    quantity,
    timestamp: Math.floor(clock.now() / 1000) - 60,
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

/** What the meter counted for the event's customer within an hour of its timestamp. */
async function counted(event: BillingEvent): Promise<number> {
  const summaries = await stripe.billing.meters.listEventSummaries(meter.id, {
    customer: event.stripeCustomerId,
    start_time: event.timestamp - 3_600,
    end_time: event.timestamp + 3_600,
  });
  return summaries.data.reduce((sum, summary) => sum + summary.aggregated_value, 0);
}

const deadLettersOf = (event: BillingEvent) =>
  serviceBus.inspect(queue).deadLettered.filter((message) => JSON.stringify(message.body).includes(`"${event.usageId}"`));

describe("the metered billing consumer", () => {
  it("counts a usage once, even when it is delivered again under another messageId", async () => {
    const event = await usage(3);
    await sender.sendMessages({ body: event, messageId: "meter-1" });
    await sender.sendMessages({ body: event, messageId: "meter-1-duplicate" });
    await until(() => logs.filter((line) => line.startsWith(`${event.usageId}: `) && line.includes("completed")).length === 2 && settled(), "both deliveries");

    expect(await counted(event)).toBe(3);
    expect(deadLettersOf(event)).toEqual([]);
  });

  it("retries a Stripe timeout after the commit with the same identifier: counted once", async () => {
    const event = await usage(5);
    const fault = stripeEmulator.faults.inject({
      action: "commitThenHang",
      method: "POST",
      path: "/v1/billing/meter_events",
      times: 1,
      when: (request) => JSON.stringify(request.params).includes(event.stripeCustomerId),
    });
    await sender.sendMessages({ body: event, messageId: "meter-timeout-1" });
    await until(() => fault.hits === 1, "the hung Stripe call");
    await until(() => logs.some((line) => /(retry|wait) \d+ as meter-timeout-1:retry:\d+/.test(line)), "the scheduled retry");
    await until(() => logs.some((line) => line.startsWith(`${event.usageId}: `) && line.includes("completed")) && settled(), "the retry");

    expect(await counted(event)).toBe(5);
    expect(deadLettersOf(event)).toEqual([]);
  });

  it("dead-letters a malformed event or one Stripe would refuse, naming the problem, and counts nothing", async () => {
    const event = await usage();
    const stale = { ...event, usageId: `${event.usageId}-stale`, timestamp: event.timestamp - 40 * 86_400 };
    await sender.sendMessages([
      { body: { ...event, quantity: 0 }, messageId: "meter-bad-quantity" },
      { body: stale, messageId: "meter-stale" },
    ]);
    await until(() => serviceBus.inspect(queue).deadLettered.length >= 2 && settled(), "two dead-letters");

    const byId = new Map(serviceBus.inspect(queue).deadLettered.map((message) => [message.messageId, message]));
    const reasonOf = (id: string) => `${byId.get(id)?.deadLetterReason} ${byId.get(id)?.deadLetterDescription}`;
    expect(reasonOf("meter-bad-quantity")).toContain("quantity");
    expect(reasonOf("meter-stale")).toContain("35 days");
    expect(await counted(event)).toBe(0);
  });

  // Last: it moves the shared clock a day ahead.
  it("does not count a usage resubmitted with a new messageId after Stripe's 24 h key window", async () => {
    const event = await usage(2);
    await sender.sendMessages({ body: event, messageId: "meter-resubmit-original" });
    await until(() => logs.some((line) => line.startsWith(`${event.usageId}: `) && line.includes("completed")) && settled(), "the first event");

    clock.advance(dayMs + 60 * 60 * 1000);
    await sender.sendMessages({ body: event, messageId: "meter-resubmit-copy" });
    await until(() => logs.filter((line) => line.startsWith(`${event.usageId}: `) && line.includes("completed")).length === 2 && settled(), "the resubmission");

    expect(await counted(event)).toBe(2);
    expect(deadLettersOf(event)).toEqual([]);
  });
});
