// Seed "Azure Service Bus and Stripe Integration", failure mode 2: the idempotency key is the messageId.
// A messageId names one message, not one billing: a dead-lettered event re-sent by operator tooling (Service Bus
// Explorer, the portal, `new ServiceBusMessage(body)`) gets a new messageId, and so does a producer that sends the
// same event twice. Each copy carries a new key, so Stripe charges the customer once per copy.
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

        // Looks natural (the message's own unique id), and survives lock-lapse redeliveries of the same message,
        // but not a resubmission or a duplicate send: both arrive with a new messageId.
        const idempotencyKey = `charge-${String(message.messageId)}`;

        const paymentIntent = await stripe.paymentIntents.create(
          {
            amount: event.amountCents,
            currency: event.currency,
            customer: event.stripeCustomerId,
            payment_method: event.paymentMethodId,
            confirm: true,
            off_session: true,
            description: `Usage billing for ${event.billingPeriod}`,
            metadata: { customer_id: event.customerId, billing_period: event.billingPeriod },
          },
          { idempotencyKey },
        );
        await context.hook?.("afterStripe", event);

        await context.hook?.("beforeComplete", event);
        await receiver.completeMessage(message);
        context.log?.(`charged ${event.customerId}: ${paymentIntent.id}`);
      },
      async processError(args) {
        context.log?.(`message-id-key: ${args.errorSource}: ${args.error.message}`);
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
