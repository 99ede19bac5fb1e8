// The events this consumer bills: the schema (zod, or any Standard Schema) and what one event bills. Yours to edit:
// one charge per (customer, billing period), on the customer's default card source.
import type { BillingEventDefinition } from "chargeguard/runtime";
import { z } from "zod";
import type { FlowRequest } from "./flow.js";

export const billingEventSchema = z.strictObject({
  /** Your id for the customer: with the billing period, the identity of one billing. */
  customerId: z.string().min(1).max(64),
  stripeCustomerId: z.string().startsWith("cus_"),
  billingPeriod: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, "expected YYYY-MM"),
  /** Minor units of the currency, a positive integer. */
  amountCents: z.number().int().positive(),
  currency: z.string().regex(/^[a-z]{3}$/, "expected an ISO 4217 code in lower case"),
});

export type BillingEvent = z.infer<typeof billingEventSchema>;

export const billingEvent: BillingEventDefinition<BillingEvent, FlowRequest> = {
  schema: billingEventSchema,
  toBilling: (event) => ({
    key: { customerId: event.customerId, billingPeriod: event.billingPeriod },
    // Reserved against the period's cap (BILLING_PERIOD_CAP_CENTS, per currency) before Stripe is called.
    spend: { period: event.billingPeriod, currency: event.currency, amount: event.amountCents },
    request: (idempotencyKey) => ({
      amount: event.amountCents,
      currency: event.currency,
      customer: event.stripeCustomerId,
      description: `usage ${event.billingPeriod}`,
      metadata: { idempotency_key: idempotencyKey, customer_id: event.customerId, billing_period: event.billingPeriod },
    }),
  }),
};
