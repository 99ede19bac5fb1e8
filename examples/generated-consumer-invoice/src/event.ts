// The events this consumer bills: the schema (zod, or any Standard Schema) and what one event bills. Yours to edit:
// the billing unit is the producer's usage id (one paid invoice per usage record), priced by its lines.
import type { BillingEventDefinition } from "chargeguard/runtime";
import { z } from "zod";
import type { FlowRequest } from "./flow.js";

export const billingEventSchema = z.strictObject({
  /** The producer's id for this usage record: one invoice per id, however often it is delivered. */
  usageId: z.string().min(1).max(200),
  stripeCustomerId: z.string().startsWith("cus_"),
  /** The day the usage belongs to; its month is the spend cap's period. */
  day: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-\d{2}$/, "expected YYYY-MM-DD"),
  currency: z.string().regex(/^[a-z]{3}$/, "expected an ISO 4217 code in lower case"),
  /** One invoice item each, in minor units. */
  lines: z.array(z.strictObject({ amountCents: z.number().int().positive(), description: z.string().min(1).max(500) })).min(1).max(20),
});

export type BillingEvent = z.infer<typeof billingEventSchema>;

export const billingEvent: BillingEventDefinition<BillingEvent, FlowRequest> = {
  schema: billingEventSchema,
  toBilling: (event) => ({
    key: { usageId: event.usageId },
    // Reserved against the month's cap (BILLING_PERIOD_CAP_CENTS, per currency) before Stripe is called.
    spend: { period: event.day.slice(0, 7), currency: event.currency, amount: event.lines.reduce((sum, line) => sum + line.amountCents, 0) },
    request: () => ({
      customer: event.stripeCustomerId,
      currency: event.currency,
      description: `usage ${event.day}`,
      items: event.lines.map((line) => ({ amount: line.amountCents, description: line.description })),
    }),
  }),
};
