// Seed "Azure Service Bus and Stripe Integration", failure mode 3: abandonMessage() on a timeout.
// A Stripe timeout or dropped connection means "outcome unknown": Stripe may have committed the charge before the
// answer was lost. Abandoning releases the lock at once (Service Bus has no backoff on abandon), a competing
// replica takes the message within milliseconds and, with no idempotency key, charges again. In an outage it also
// hammers Stripe with immediate retries until MaxDeliveryCount.
import { isServiceBusError, ServiceBusClient } from "@azure/service-bus";
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
            // no idempotencyKey: each delivery attempt is a new Stripe request
          });
          await context.hook?.("afterStripe", event);
          await context.hook?.("beforeComplete", event);
          await receiver.completeMessage(message);
          context.log?.(`charged ${event.customerId}: ${paymentIntent.id}`);
        } catch (error) {
          if (error instanceof Stripe.errors.StripeConnectionError) {
            // "Timeout means it failed, so retry": the charge may already exist. Immediate redelivery.
            await receiver.abandonMessage(message); // WRONG
            return;
          }
          if (isServiceBusError(error) && error.code === "ServiceTimeout") {
            // A Service Bus operation timed out while the charge was in flight: same mistake.
            await receiver.abandonMessage(message); // WRONG
            return;
          }
          if (error instanceof Stripe.errors.StripeCardError) {
            // A decline is final: recorded as a log line and settled.
            context.log?.(`declined ${event.customerId}: ${error.message}`);
            await receiver.completeMessage(message);
            return;
          }
          throw error;
        }
      },
      async processError(args) {
        context.log?.(`abandon-on-timeout: ${args.errorSource}: ${args.error.message}`);
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
