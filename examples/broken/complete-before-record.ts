// Seed "Spring Integration Azure Service Bus + Stripe", failure mode 2: the message is completed inside the
// "transaction", before the billing record is durable. Completing is a network call to Service Bus that no
// database rollback can undo. The repository's save() only queues the INSERT (JPA-style, as in the seed); it
// reaches the database at commit. A crash or a failed commit after the complete leaves the charge at Stripe, the
// message gone and no billing record: a lost billing record. When the event comes again after Stripe's 24 h key
// window (nightly reconciliation of unbilled usage, a dead-letter resubmission), the pre-flight check finds no
// row, Stripe has forgotten the key, and the customer is charged a second time.
import { createHash } from "node:crypto";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import type { StartConsumer, UsageEvent } from "../../runtime/index.js";
import { type BillingDatabase, openBillingDatabase } from "./support/billing-records.js";
import { stripeOptions } from "./support/stripe-options.js";
import { readUsageEvent } from "./support/usage-event.js";

interface BillingRecord {
  event: UsageEvent;
  chargeId: string;
  idempotencyKey: string;
}

/** What the seed's @Transactional gives it: writes queued by save() and flushed together at commit. */
function beginTransaction(database: BillingDatabase) {
  const queued: BillingRecord[] = [];
  return {
    save(record: BillingRecord) {
      queued.push(record);
    },
    async commit() {
      for (const { event, chargeId, idempotencyKey } of queued) {
        await database.query(
          `INSERT INTO billing_records (customer_id, billing_period, charge_id, amount_cents, status, idempotency_key)
           VALUES ($1, $2, $3, $4, 'charged', $5)
           ON CONFLICT (customer_id, billing_period) DO NOTHING`,
          [event.customerId, event.billingPeriod, chargeId, event.amountCents, idempotencyKey],
        );
      }
    },
  };
}

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

        // The seed gets this part right: a key from business fields, stable across redeliveries.
        const idempotencyKey = createHash("sha256")
          .update(`${event.customerId}|${event.billingPeriod}|${event.amountCents}|${event.currency}`)
          .digest("hex");

        // Pre-flight check: already billed? Only as good as the record it reads.
        const existing = await database.query(
          "SELECT charge_id FROM billing_records WHERE customer_id = $1 AND billing_period = $2",
          [event.customerId, event.billingPeriod],
        );
        if (existing.rows.length > 0) {
          await context.hook?.("beforeComplete", event);
          await receiver.completeMessage(message);
          return;
        }
        await context.hook?.("afterClaim", event);

        const transaction = beginTransaction(database);
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

        // BUG: settles the message before the record is durable, believing the rollback would undo it.
        await context.hook?.("beforeComplete", event);
        await receiver.completeMessage(message);

        transaction.save({ event, chargeId: paymentIntent.id, idempotencyKey });
        await context.hook?.("afterRecord", event);
        await transaction.commit();
      },
      async processError(args) {
        context.log?.(`complete-before-record: ${args.errorSource}: ${args.error.message}`);
      },
    },
    { autoCompleteMessages: false, maxConcurrentCalls: context.maxConcurrentCalls ?? 1 },
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
