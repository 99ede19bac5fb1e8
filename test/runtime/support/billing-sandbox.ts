// One sandbox per test file: the Service Bus emulator (a fresh queue per test), the Stripe emulator on an
// adjustable clock, and one embedded PGlite shared by every replica (as an in-process fleet shares a database).
import { PGlite } from "@electric-sql/pglite";
import { ServiceBusClient, type ServiceBusMessage } from "@azure/service-bus";
import Stripe from "stripe";
import { consumerQueueRights } from "../../../tuning/index.js";
import type { UsageEvent } from "../../../runtime/event/usage-event.js";
import type { BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../../sandbox/servicebus/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { vi } from "vitest";

export interface BillingSandbox {
  clock: AdjustableClock;
  serviceBus: ServiceBusEmulator;
  stripe: StripeEmulator;
  pglite: PGlite;
  admin: Stripe;
  client: ServiceBusClient;
  /** A fresh queue: short locks, duplicate detection on unless told otherwise. */
  queue(lockDurationMs?: number, options?: { duplicateDetection?: boolean }): string;
  send(queue: string, message: ServiceBusMessage): Promise<void>;
  /** A Stripe customer and a valid event for it. */
  event(overrides?: Partial<UsageEvent>): Promise<UsageEvent>;
  stop(): Promise<void>;
}

let queues = 0;

/** The rule every consumer connects with: exactly the SAS rights BillingQueue deploys for a consumer. */
export const consumerRule = "consumer";

/**
 * What the end-to-end consumer tests share: the sandbox's endpoints with the consumer's rights, its clock, and
 * short leases, retries and closes.
 */
export function consumerOptionsFor(sandbox: BillingSandbox, queue: string): BillingConsumerOptions {
  return {
    serviceBus: { connectionString: sandbox.serviceBus.connectionStringFor(consumerRule), queueName: queue },
    stripe: { apiKey: "rk_test_sandbox", apiBase: sandbox.stripe.apiBase, timeoutMs: 2_000, maxNetworkRetries: 0 },
    clock: sandbox.clock,
    leaseMs: 3_000,
    retryPolicy: { baseDelayMs: 200, maxDelayMs: 1_000 },
    maxAutoLockRenewalDurationInMs: 30_000,
    closeTimeoutMs: 2_000,
    log: () => {},
  };
}

/** `authorizationRules`: more rules beside the consumer's (e.g. narrower ones, to show what fails without a right). */
export async function startBillingSandbox(
  options: Pick<Parameters<typeof startServiceBusEmulator>[0], "authorizationRules" | "log"> = {},
): Promise<BillingSandbox> {
  const clock = new AdjustableClock();
  const [serviceBus, stripe, pglite] = await Promise.all([
    // Namespace scope, as the queues are made per test; the rights are the consumer's (Listen + Send), no Manage.
    startServiceBusEmulator({ queues: {}, ...(options.log ? { log: options.log } : {}), authorizationRules: { ...options.authorizationRules, [consumerRule]: { rights: consumerQueueRights.sasRights } } }),
    startStripeEmulator({ clock }),
    PGlite.create(),
  ]);
  const admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
  const client = new ServiceBusClient(serviceBus.connectionString);
  const sender = new Map<string, ReturnType<ServiceBusClient["createSender"]>>();
  return {
    clock,
    serviceBus,
    stripe,
    pglite,
    admin,
    client,
    queue(lockDurationMs = 2_000, options = {}) {
      const name = `billing-${++queues}`;
      serviceBus.addQueue(name, {
        lockDurationMs,
        maxDeliveryCount: 10,
        ...(options.duplicateDetection === false ? {} : { duplicateDetectionWindowMs: 600_000 }),
      });
      return name;
    },
    async send(queue, message) {
      let s = sender.get(queue);
      if (!s) {
        s = client.createSender(queue);
        sender.set(queue, s);
      }
      await s.sendMessages(message);
    },
    async event(overrides = {}) {
      const customer = await admin.customers.create({ name: "e2e" });
      return {
        customerId: `acct-${customer.id}`,
        stripeCustomerId: customer.id,
        paymentMethodId: "pm_card_visa",
        billingPeriod: "2026-10",
        amountCents: 2_500,
        currency: "usd",
        ...overrides,
      };
    },
    async stop() {
      await client.close();
      await Promise.all([serviceBus.stop(), stripe.stop(), pglite.close()]);
    },
  };
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined || value === false) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      return value;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}
