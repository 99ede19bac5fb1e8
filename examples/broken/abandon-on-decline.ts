// Seed "Azure Service Bus and Stripe Integration", failure mode 3 (the CardError branch): abandonMessage() on a
// card decline. A decline is permanent, but abandoning redelivers the message at once, and every delivery tries
// the card again (no idempotency key, so Stripe does not replay the saved decline): up to MaxDeliveryCount card
// attempts per event, each a decline the customer's bank sees, before the message lands in the dead-letter queue.
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
        try {
          const paymentIntent = await stripe.paymentIntents.create({
            amount: event.amountCents,
            currency: event.currency,
            customer: event.stripeCustomerId,
            payment_method: event.paymentMethodId,
            confirm: true,
            off_session: true,
            description: `Usage billing for ${event.billingPeriod}`,
          });
          await context.hook?.("afterStripe", event);
          await context.hook?.("beforeComplete", event);
          await receiver.completeMessage(message);
          context.log?.(`charged ${event.customerId}: ${paymentIntent.id}`);
        } catch (error) {
          if (error instanceof Stripe.errors.StripeCardError) {
            // WRONG: record the decline and complete instead. This retries the card on every delivery.
            await receiver.abandonMessage(message);
            return;
          }
          throw error;
        }
      },
      async processError(args) {
        context.log?.(`abandon-on-decline: ${args.errorSource}: ${args.error.message}`);
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
