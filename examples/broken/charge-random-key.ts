// The legacy Charges API as the seeds call it (`stripe.Charge.create`), with a fresh UUID as the idempotency key and
// auto-complete on. The key covers only retries inside one delivery: a replica killed after Stripe charged (or a
// lock lost mid-call) brings the message back, the redelivery draws a new UUID that Stripe has never seen, and the
// customer's default card is charged a second time.
import { randomUUID } from "node:crypto";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import type { StartConsumer } from "../../runtime/index.js";
import { type ChargeEvent, readEvent, stepHook } from "./support/flow-event.js";
import { stripeOptions } from "./support/stripe-options.js";

export const startConsumer: StartConsumer = async (context) => {
  const hook = stepHook(context);
  const stripe = new Stripe(context.stripe.apiKey, stripeOptions(context.stripe));
  const client = new ServiceBusClient(context.serviceBus.connectionString);
  const receiver = client.createReceiver(context.serviceBus.queueName, {
    receiveMode: "peekLock",
    maxAutoLockRenewalDurationInMs: context.maxAutoLockRenewalDurationInMs,
  });

  const subscription = receiver.subscribe(
    {
      async processMessage(message) {
        const event = readEvent<ChargeEvent>(message);

        // BUG: a new key per delivery: Stripe deduplicates nothing across redeliveries.
        const idempotencyKey = randomUUID();

        const charge = await stripe.charges.create(
          {
            amount: event.amountCents,
            currency: event.currency,
            customer: event.stripeCustomerId,
            description: `usage ${event.billingPeriod}`,
            metadata: { customer_id: event.customerId, billing_period: event.billingPeriod },
          },
          { idempotencyKey },
        );
        await hook("afterStripe", event);

        // Returning completes the message (auto-complete); throwing anywhere above abandons it.
        await hook("beforeComplete", event);
        context.log?.(`charged ${event.customerId}: ${charge.id}`);
      },
      async processError(args) {
        context.log?.(`charge-random-key: ${args.errorSource}: ${args.error.message}`);
      },
    },
    { maxConcurrentCalls: context.maxConcurrentCalls ?? 1 },
  );

  return {
    async close() {
      await subscription.close();
      await receiver.close();
      await client.close();
    },
  };
};
