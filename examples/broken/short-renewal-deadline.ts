// Seed "Spring Integration Azure Service Bus + Stripe", failure mode 3: the lock renewal deadline set equal to the
// queue's LockDuration. maxAutoLockRenewalDurationInMs is a TOTAL deadline per message, not a renewal interval:
// renewal stops once it has passed, so a Stripe call slower than deadline + one lock (3-D Secure, Stripe retries
// with an 80 s timeout each) outlives the lock. The message goes to a competing replica while the first charge is
// still in flight; with a per-delivery key (the seed's test uses a new UUID) the second delivery charges again.
import { randomUUID } from "node:crypto";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import type { StartConsumer } from "../../runtime/index.js";
import { openBillingDatabase } from "./support/billing-records.js";
import { stripeOptions } from "./support/stripe-options.js";
import { readUsageEvent } from "./support/usage-event.js";

/** The queue's LockDuration. The developer meant "renew every 60 s"; the SDK reads "stop renewing after 60 s". */
const queueLockDurationMs = 60_000;

export const startConsumer: StartConsumer = async (context) => {
  const database = await openBillingDatabase(context);
  // 3-D Secure can take two minutes, so the Stripe timeout is raised, but the lock is not held that long.
  const stripe = new Stripe(context.stripe.apiKey, { timeout: 120_000, ...stripeOptions(context.stripe) });
  const client = new ServiceBusClient(context.serviceBus.connectionString);
  const receiver = client.createReceiver(context.serviceBus.queueName, {
    receiveMode: "peekLock",
    // The harness passes its own queue's (shorter) LockDuration here, to keep the run fast.
    maxAutoLockRenewalDurationInMs: context.maxAutoLockRenewalDurationInMs ?? queueLockDurationMs,
  });

  const subscription = receiver.subscribe(
    {
      async processMessage(message) {
        const event = readUsageEvent(message);
        const idempotencyKey = randomUUID();

        const paymentIntent = await stripe.paymentIntents.create(
          {
            amount: event.amountCents,
            currency: event.currency,
            customer: event.stripeCustomerId,
            payment_method: event.paymentMethodId,
            confirm: true,
            off_session: true,
          },
          { idempotencyKey },
        );
        await context.hook?.("afterStripe", event);

        await database.query(
          `INSERT INTO billing_records (customer_id, billing_period, charge_id, amount_cents, status, idempotency_key)
           VALUES ($1, $2, $3, $4, 'charged', $5)
           ON CONFLICT (customer_id, billing_period) DO NOTHING`,
          [event.customerId, event.billingPeriod, paymentIntent.id, event.amountCents, idempotencyKey],
        );
        await context.hook?.("afterRecord", event);
        await context.hook?.("beforeComplete", event);
      },
      async processError(args) {
        context.log?.(`short-renewal-deadline: ${args.errorSource}: ${args.error.message}`);
      },
    },
    // Auto-complete on, two concurrent 3-D Secure flows, as in the seed.
    { autoCompleteMessages: true, maxConcurrentCalls: context.maxConcurrentCalls ?? 2 },
  );

  return {
    async close() {
      await subscription.close();
      await receiver.close();
      await client.close();
      await database.close();
    },
  };
};
