// The consumer against the local sandbox: the real Service Bus and Stripe SDKs talk to emulators on 127.0.0.1,
// the guard on the PostgreSQL TEST_DATABASE_URL names, else in memory. Each case is one way a billing goes wrong in production.
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
import { type ConsumerOptions, startUsageBillingConsumer } from "../src/consumer.js";
import { settings } from "../src/settings.js";
import { guardDatabase, runPrefix } from "./guard-database.js";

const queue = "usage-billing";
const currency = "usd";
const dayMs = 24 * 60 * 60 * 1000;

type Hook = NonNullable<ConsumerOptions["hook"]>;
type Step = Parameters<Hook>[0];

let serviceBus: ServiceBusEmulator;
let stripeEmulator: StripeEmulator;
let client: ServiceBusClient;
let sender: ServiceBusSender;
let consumer: { close(): Promise<void> };
let stripe: Stripe;
const clock = new AdjustableClock();

/** What the consumer logged: a scheduled retry is logged only once Service Bus accepted it. */
const logs: string[] = [];

/** A test may hold the flow of one customer's event at one step boundary, as a slow or stuck replica would. */
let held: { step: Step; customerId: string; reached: () => void; released: Promise<void> } | undefined;

beforeAll(async () => {
  // The consumer runs with exactly the rights BillingQueue deploys for it (Listen + Send on its queue): a consumer
  // that needs more fails here, not in Azure.
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
    // The sandbox queue's lock is 3 s: renew it while a test holds a message.
    maxAutoLockRenewalDurationInMs: 60_000,
    retryPolicy: { baseDelayMs: 200, maxDelayMs: 1_000 },
    // A competing delivery waits for the guard's lease to lapse; keep it short so the lock-loss case is quick.
    leaseMs: 3_000,
    hook: async (step, event) => {
      const hold = held;
      if (hold === undefined || hold.step !== step || hold.customerId !== event.customerId) return;
      held = undefined;
      hold.reached();
      await hold.released;
    },
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
async function usageEvent(paymentMethodId = "pm_card_visa") {
  customers += 1;
  const customer = await stripe.customers.create({ name: `customer ${customers}` });
  return {
    // Keyed on the usage event's own id (src/event.ts), each event carries one.
    ...(settings.billingIdentity === "usage-event" ? { usageId: `${runPrefix}-usage-${customers}` } : {}),
    customerId: `${runPrefix}-customer-${customers}`,
    stripeCustomerId: customer.id,
    paymentMethodId,
    billingPeriod: "2026-10",
    amountCents: 2_500,
    currency,
  };
}

function holdAt(step: Step, customerId: string) {
  let reached!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  held = { step, customerId, reached, released };
  return { arrived, release };
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

const paymentIntentsOf = (stripeCustomerId: string) => stripeEmulator.ledger.paymentIntents(stripeCustomerId);
const deadLettersOf = (customerId: string) =>
  serviceBus.inspect(queue).deadLettered.filter((message) => JSON.stringify(message.body).includes(`"${customerId}"`));

describe("the billing consumer", () => {
  it("charges a valid event once and completes its message", async () => {
    const event = await usageEvent();
    await sender.sendMessages({ body: event, messageId: "success-1" });
    await until(() => paymentIntentsOf(event.stripeCustomerId).length === 1 && settled(), "the charge");

    const [paymentIntent] = paymentIntentsOf(event.stripeCustomerId);
    expect(paymentIntent).toMatchObject({ status: "succeeded", amount: 2_500, currency });
    expect(deadLettersOf(event.customerId)).toEqual([]);
  });

  it("records a declined card and never tries it again, even for a duplicate send", async () => {
    const event = await usageEvent("pm_card_chargeDeclined");
    await sender.sendMessages({ body: event, messageId: "decline-1" });
    await until(() => paymentIntentsOf(event.stripeCustomerId).length === 1 && settled(), "the decline");

    await sender.sendMessages({ body: event, messageId: "decline-1-duplicate" });
    await until(settled, "the duplicate to be settled");
    const attempts = paymentIntentsOf(event.stripeCustomerId);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.status).not.toBe("succeeded");
    expect(deadLettersOf(event.customerId)).toEqual([]);
  });

  it("does not charge twice when the lock is lost mid-charge and the message is redelivered", async () => {
    const event = await usageEvent();
    const hold = holdAt("afterStripe", event.customerId);
    await sender.sendMessages({ body: event, messageId: "lock-loss-1" });
    await hold.arrived;

    // The first delivery has charged and is stuck; its lock lapses and the queue hands the message out again.
    const lapsed = serviceBus.faults.expireLock(queue, (message) => message.messageId === "lock-loss-1");
    expect(lapsed).toBe(1);
    await until(() => serviceBus.inspect(queue).locked.length === 0, "the redelivery to be settled");
    hold.release();

    await until(settled, "every delivery and retry to be settled");
    expect(paymentIntentsOf(event.stripeCustomerId).filter((intent) => intent.status === "succeeded")).toHaveLength(1);
    expect(deadLettersOf(event.customerId)).toEqual([]);
  });

  it("retries a Stripe timeout after the commit with the same key: one charge", async () => {
    const event = await usageEvent();
    const fault = stripeEmulator.faults.inject({
      action: "commitThenHang",
      method: "POST",
      path: "/v1/payment_intents",
      times: 1,
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    await sender.sendMessages({ body: event, messageId: "timeout-1" });
    await until(() => fault.hits === 1, "the hung Stripe call");
    await until(() => {
      if (logs.some((line) => line.includes("retry not scheduled"))) throw new Error(`the retry was refused: ${logs.join("\n")}`);
      // A Stripe timeout is a wait (the same attempt, rescheduled) or a retry: either way a scheduled message.
      return logs.some((line) => /(retry|wait) \d+ as timeout-1:retry:\d+/.test(line));
    }, "the scheduled retry");
    await until(() => settled() && paymentIntentsOf(event.stripeCustomerId).length > 0, "the retry");

    expect(paymentIntentsOf(event.stripeCustomerId)).toHaveLength(1);
    expect(paymentIntentsOf(event.stripeCustomerId)[0]?.status).toBe("succeeded");
    expect(deadLettersOf(event.customerId)).toEqual([]);
  });

  it("dead-letters a malformed event with a reason that names the problem, and charges nothing", async () => {
    const event = await usageEvent();
    await sender.sendMessages([
      { body: "{ not json", messageId: "bad-json-1" },
      { body: { ...event, amountCents: -5 }, messageId: "bad-amount-1" },
    ]);
    await until(() => serviceBus.inspect(queue).deadLettered.length >= 2 && settled(), "two dead-letters");

    const byId = new Map(serviceBus.inspect(queue).deadLettered.map((message) => [message.messageId, message]));
    const badAmount = byId.get("bad-amount-1");
    expect(byId.get("bad-json-1")?.deadLetterReason).toBeTruthy();
    expect(`${badAmount?.deadLetterReason} ${badAmount?.deadLetterDescription}`).toContain("amountCents");
    expect(paymentIntentsOf(event.stripeCustomerId)).toEqual([]);
  });

  // Last: it moves the shared clock a day ahead.
  it("does not charge an event resubmitted with a new messageId after Stripe's 24 h key window", async () => {
    const event = await usageEvent();
    await sender.sendMessages({ body: event, messageId: "resubmit-original" });
    await until(() => paymentIntentsOf(event.stripeCustomerId).length === 1 && settled(), "the first charge");

    // Dead-letter tooling re-sends the body as a new message; Stripe has forgotten the idempotency key by now.
    clock.advance(dayMs + 60 * 60 * 1000);
    await sender.sendMessages({ body: event, messageId: "resubmit-copy" });
    await until(settled, "the resubmission to be settled");

    expect(paymentIntentsOf(event.stripeCustomerId)).toHaveLength(1);
    expect(deadLettersOf(event.customerId)).toEqual([]);
  });
});
