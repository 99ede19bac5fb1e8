// Usage sent to a Billing Meter without an `identifier` (and without an idempotency key): Stripe assigns each event
// its own identifier, so it cannot tell a redelivery from new usage. A replica killed after Stripe accepted the event
// (or a lock lost mid-call) brings the message back and the same usage is counted again in the meter's summaries:
// the customer is billed for it twice on the next invoice. There is no per-event read-back to undo it.
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import type { StartConsumer } from "../../runtime/index.js";
import { type MeterUsageEvent, readEvent, stepHook } from "./support/flow-event.js";
import { stripeOptions } from "./support/stripe-options.js";

/** The meter's event name (the generated meter-event consumer's, which the proving ground creates the meter for). */
const meterEventName = "billed_usage";

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
        const event = readEvent<MeterUsageEvent>(message);

        const sent = await stripe.billing.meterEvents.create({
          event_name: meterEventName,
          payload: { stripe_customer_id: event.stripeCustomerId, value: String(event.quantity) },
          timestamp: event.timestamp,
          // BUG: no identifier (and no idempotency key): a redelivery is a second event to Stripe.
        });
        await hook("afterStripe", event);

        await hook("beforeComplete", event);
        await receiver.completeMessage(message);
        context.log?.(`metered ${event.usageId}: ${sent.identifier}`);
      },
      async processError(args) {
        context.log?.(`meter-event-no-identifier: ${args.errorSource}: ${args.error.message}`);
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
