// Failure mode from the Service Bus facts the seeds rely on: receiveMode "receiveAndDelete". The broker deletes
// the message as it hands it over, so there is nothing to complete and nothing to redeliver. A replica killed
// before the charge, or a Stripe call that fails (500, timeout, lapsed connection), loses that billing for good:
// no charge, no decline, no dead-letter. The key and the pre-flight check are right; the settlement is not.
import { createHash } from "node:crypto";
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
  // "Simpler and faster: no lock to renew, no message to settle." Also no second chance.
  const receiver = client.createReceiver(context.serviceBus.queueName, { receiveMode: "receiveAndDelete" });

  const subscription = receiver.subscribe(
    {
      async processMessage(message) {
        const event = readUsageEvent(message);
        const idempotencyKey = createHash("sha256")
          .update(`${event.customerId}|${event.billingPeriod}|${event.amountCents}|${event.currency}`)
          .digest("hex");

        const existing = await database.query(
          "SELECT charge_id FROM billing_records WHERE customer_id = $1 AND billing_period = $2",
          [event.customerId, event.billingPeriod],
        );
        if (existing.rows.length > 0) return;
        await context.hook?.("afterClaim", event);

        const paymentIntent = await stripe.paymentIntents.create(
          {
            amount: event.amountCents,
            currency: event.currency,
            customer: event.stripeCustomerId,
            payment_method: event.paymentMethodId,
            confirm: true,
            off_session: true,
            metadata: { customer_id: event.customerId, billing_period: event.billingPeriod },
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
      },
      async processError(args) {
        // The message is already gone: this log line is all that is left of the billing.
        context.log?.(`receive-and-delete: ${args.errorSource}: ${args.error.message}`);
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
