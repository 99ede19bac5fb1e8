// End-to-end throughput of the billing consumer with and without the guard, on the sandbox (real Service Bus and
// Stripe SDKs against the emulators, the guard on PGlite or PostgreSQL), at a fixed Stripe latency. The guard
// engineer's bench/guard.ts compares the two: the guard should cost at most 10% at 50 ms of Stripe latency.
import { PGlite } from "@electric-sql/pglite";
import { ServiceBusClient, type ServiceBusMessage } from "@azure/service-bus";
import Stripe from "stripe";
import { startBillingConsumer } from "../runtime/consumer.js";
import type { RunningConsumer, UsageEvent } from "../runtime/consumer-contract.js";
import { BillingGuard } from "../runtime/guard/billing-guard.js";
import { stableKey } from "../runtime/stable-key.js";
import { buildPaymentIntentParams } from "../runtime/stripe/payment-intent-params.js";
import { startServiceBusEmulator } from "../sandbox/servicebus/index.js";
import { startStripeEmulator } from "../sandbox/stripe/index.js";

export interface ConsumerThroughputOptions {
  events: number;
  /** Added to every PaymentIntent create; default 50. */
  stripeLatencyMs?: number;
  /** The full billing consumer (guard on) or a plain one (stable key, Stripe, complete; no guard). */
  withGuard: boolean;
  /** Messages in flight per consumer; default 16. */
  concurrency?: number;
  /** PostgreSQL for the guard; absent: in-memory PGlite. */
  databaseUrl?: string;
  /** Spread the events over this many billing periods (each period has one spend-ledger row); default 1. */
  periods?: number;
}

export interface ConsumerThroughput {
  events: number;
  seconds: number;
  perSecond: number;
}

const queue = "billing-bench";
const apiKey = "rk_test_sandbox";

export async function measureConsumerThroughput(options: ConsumerThroughputOptions): Promise<ConsumerThroughput> {
  if (!Number.isSafeInteger(options.events) || options.events < 1) throw new Error(`events must be a positive integer, got ${options.events}`);
  const concurrency = options.concurrency ?? 16;
  const serviceBus = await startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: 60_000 } } });
  const stripe = await startStripeEmulator();
  const client = new ServiceBusClient(serviceBus.connectionString);
  let pglite: PGlite | undefined;
  let guard: BillingGuard | undefined;
  let consumer: RunningConsumer | undefined;
  try {
    stripe.faults.inject({ method: "POST", path: "/v1/payment_intents", action: "latency", ms: options.stripeLatencyMs ?? 50 });
    const admin = new Stripe(apiKey, { ...stripe.stripeConfig, maxNetworkRetries: 0 });
    const customer = await admin.customers.create({ name: "bench" });
    const run = Date.now().toString(36);
    const events: UsageEvent[] = Array.from({ length: options.events }, (_, i) => ({
      customerId: `bench-${run}-${i}`,
      stripeCustomerId: customer.id,
      paymentMethodId: "pm_card_visa",
      billingPeriod: periodNumber(i % (options.periods ?? 1)),
      amountCents: 1_000 + i,
      currency: "usd",
    }));
    await send(client, events.map((event, i) => ({ body: event, messageId: `bench-${i}` })));

    // Everything slow to open (the database) is opened before the clock starts.
    if (options.withGuard) {
      if (!options.databaseUrl) pglite = await PGlite.create();
      guard = await BillingGuard.open(options.databaseUrl ? { databaseUrl: options.databaseUrl } : { pglite: pglite as PGlite });
    }
    const started = performance.now();
    consumer = guard
      ? await startBillingConsumer({
          serviceBus: { connectionString: serviceBus.connectionString, queueName: queue },
          stripe: { apiKey, apiBase: stripe.apiBase, timeoutMs: 10_000, maxNetworkRetries: 1 },
          guard,
          maxConcurrentCalls: concurrency,
          log: () => {},
        })
      : await startPlainConsumer(serviceBus.connectionString, stripe.apiBase, concurrency);
    await waitUntilDrained(() => {
      const snapshot = serviceBus.inspect(queue);
      return snapshot.active.length + snapshot.locked.length + snapshot.scheduled.length === 0;
    });
    const seconds = (performance.now() - started) / 1000;
    const charged = stripe.ledger.paymentIntents(customer.id).filter((pi) => pi.status === "succeeded").length;
    if (charged !== options.events) throw new Error(`expected ${options.events} charges, Stripe has ${charged}`);
    return { events: options.events, seconds, perSecond: options.events / seconds };
  } finally {
    await consumer?.close();
    await guard?.close();
    await pglite?.close();
    await client.close();
    await serviceBus.stop();
    await stripe.stop();
  }
}

/** The same flow minus the guard: stable key, Stripe, complete. Fine for a benchmark, unsafe for billing. */
async function startPlainConsumer(connectionString: string, apiBase: string, concurrency: number): Promise<RunningConsumer> {
  const url = new URL(apiBase);
  const stripe = new Stripe(apiKey, { host: url.hostname, port: Number(url.port), protocol: "http", timeout: 10_000, maxNetworkRetries: 1 });
  const client = new ServiceBusClient(connectionString);
  const receiver = client.createReceiver(queue);
  const subscription = receiver.subscribe(
    {
      processMessage: async (message) => {
        const event = message.body as UsageEvent;
        const key = stableKey(
          { customerId: event.customerId, billingPeriod: event.billingPeriod, amountCents: event.amountCents, currency: event.currency },
          { scope: "billing" },
        );
        await stripe.paymentIntents.create(buildPaymentIntentParams(event, key), { idempotencyKey: key });
        await receiver.completeMessage(message);
      },
      processError: async () => {},
    },
    { autoCompleteMessages: false, maxConcurrentCalls: concurrency },
  );
  return {
    close: async () => {
      await subscription.close();
      await receiver.close();
      await client.close();
    },
  };
}

/** 0 -> "2026-01", 1 -> "2026-02", ... */
function periodNumber(n: number): string {
  return `${2026 + Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, "0")}`;
}

async function send(client: ServiceBusClient, messages: ServiceBusMessage[]): Promise<void> {
  const sender = client.createSender(queue);
  for (let i = 0; i < messages.length; i += 100) await sender.sendMessages(messages.slice(i, i + 100));
  await sender.close();
}

async function waitUntilDrained(drained: () => boolean): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (!drained()) {
    if (Date.now() > deadline) throw new Error("the consumer did not drain the queue within 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
