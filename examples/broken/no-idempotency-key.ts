// Seed "Azure Service Bus and Stripe Integration", failure mode 1: no idempotency key.
// The consumer charges, then completes. When the lock lapses while Stripe is slow (a lock renewal answered
// ServerBusy, or a replica killed after the charge), the message goes to a competing replica, which charges the
// same customer again: nothing ties the second request to the first, so Stripe creates a second PaymentIntent.
// (The SDK adds its own random `stripe-node-retry-*` key, which covers only its retries inside one call.)
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import type { StartConsumer } from "../../runtime/index.js";
import { stripeOptions } from "./support/stripe-options.js";
import { readUsageEvent } from "./support/usage-event.js";

export const startConsumer: StartConsumer = async (context) => {
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

        // Can take minutes under load (timeout x retries); the lock must outlive it, and its renewal can fail.
        const paymentIntent = await stripe.paymentIntents.create({
          amount: event.amountCents,
          currency: event.currency,
          customer: event.stripeCustomerId,
          payment_method: event.paymentMethodId,
          confirm: true,
          off_session: true,
          description: `Usage billing for ${event.billingPeriod}`,
          metadata: { customer_id: event.customerId, billing_period: event.billingPeriod },
          // no idempotencyKey: a redelivered message is a brand-new charge
        });
        await context.hook?.("afterStripe", event);

        // Only now does the consumer learn whether it still held the lock (MessageLockLost), after the damage.
        await context.hook?.("beforeComplete", event);
        await receiver.completeMessage(message);
        context.log?.(`charged ${event.customerId}: ${paymentIntent.id}`);
      },
      async processError(args) {
        context.log?.(`no-idempotency-key: ${args.errorSource}: ${args.error.message}`);
      },
    },
    { autoCompleteMessages: false, maxConcurrentCalls: context.maxConcurrentCalls ?? 1 },
  );

  return {
    async close() {
      await subscription.close();
      await receiver.close();
      await client.close();
    },
  };
};
