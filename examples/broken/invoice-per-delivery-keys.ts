// An invoice flow written the way the seeds write keys: create the invoice, add its item with `invoice:`, finalize,
// pay, each call with a key drawn per delivery (`${randomUUID()}:<step>`). Within one delivery the SDK's retries are
// safe; across deliveries nothing is: a replica killed after `pay` (or a lock lost mid-flow) brings the message back,
// the redelivery creates a second invoice with a second item, finalizes it and pays it: the customer pays twice.
import { randomUUID } from "node:crypto";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import type { StartConsumer } from "../../runtime/index.js";
import { type InvoiceEvent, readEvent, stepHook } from "./support/flow-event.js";
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
        const event = readEvent<InvoiceEvent>(message);

        // BUG: one key per delivery, so each delivery is a new invoice to Stripe.
        const delivery = randomUUID();

        const invoice = await stripe.invoices.create(
          {
            customer: event.stripeCustomerId,
            currency: event.currency,
            auto_advance: false,
            collection_method: "charge_automatically",
            pending_invoice_items_behavior: "exclude",
            description: `usage ${event.day}`,
            metadata: { usage_id: event.usageId },
          },
          { idempotencyKey: `${delivery}:invoice` },
        );
        for (const [index, line] of event.lines.entries()) {
          await stripe.invoiceItems.create(
            { customer: event.stripeCustomerId, invoice: invoice.id, amount: line.amountCents, currency: event.currency, description: line.description },
            { idempotencyKey: `${delivery}:item-${index}` },
          );
        }
        await stripe.invoices.finalizeInvoice(invoice.id as string, { auto_advance: false }, { idempotencyKey: `${delivery}:finalize` });
        await stripe.invoices.pay(invoice.id as string, { off_session: true }, { idempotencyKey: `${delivery}:pay` });
        await hook("afterStripe", event);

        // Returning completes the message (auto-complete); throwing anywhere above abandons it.
        await hook("beforeComplete", event);
        context.log?.(`invoiced ${event.usageId}: ${invoice.id}`);
      },
      async processError(args) {
        context.log?.(`invoice-per-delivery-keys: ${args.errorSource}: ${args.error.message}`);
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
