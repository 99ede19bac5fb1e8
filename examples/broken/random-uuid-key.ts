// Seed "Spring Integration Azure Service Bus + Stripe", failure mode 1: a fresh UUID as the idempotency key, with
// auto-complete on. Auto-complete completes on a normal return and ABANDONS on a throw. Stripe commits the charge,
// then the connection drops (or the replica dies) before the answer arrives: the handler throws, the message comes
// straight back, and the redelivery draws a new UUID, which Stripe has never seen: a second charge.
// (The seed calls charges.create; PaymentIntents are its replacement, same failure.)
import { randomUUID } from "node:crypto";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import type { StartConsumer } from "../../runtime/index.js";
import { openBillingDatabase } from "./support/billing-records.js";
import { stripeOptions } from "./support/stripe-options.js";
import { readUsageEvent } from "./support/usage-event.js";

export const startConsumer: StartConsumer = async (context) => {
  const database = await openBillingDatabase(context);
  const stripe = new Stripe(context.stripe.apiKey, stripeOptions(context.stripe));
  const client = new ServiceBusClient(context.serviceBus.connectionString);
  const receiver = client.createReceiver(context.serviceBus.queueName, {
    receiveMode: "peekLock",
    maxAutoLockRenewalDurationInMs: context.maxAutoLockRenewalDurationInMs,
  });

  const subscription = receiver.subscribe(
    {
      async processMessage(message) {
        const event = readUsageEvent(message);

        // BUG: a new key on every delivery, so no delivery is ever recognised as a retry of another.
        const idempotencyKey = randomUUID();

        const paymentIntent = await stripe.paymentIntents.create(
          {
            amount: event.amountCents,
            currency: event.currency,
            customer: event.stripeCustomerId,
            payment_method: event.paymentMethodId,
            confirm: true,
            off_session: true,
            description: `Usage ${event.customerId} / ${event.billingPeriod}`,
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

        // Returning completes the message (auto-complete); throwing anywhere above abandons it.
        await context.hook?.("beforeComplete", event);
      },
      async processError(args) {
        context.log?.(`random-uuid-key: ${args.errorSource}: ${args.error.message}`);
      },
    },
    { maxConcurrentCalls: context.maxConcurrentCalls ?? 1 },
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
