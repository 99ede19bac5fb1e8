// The events this consumer bills: the schema (zod, or any Standard Schema) and what one event bills. Yours to edit:
// the billing unit is the producer's usage id, so a redelivered or resubmitted usage is counted once.
import type { BillingEventDefinition } from "chargeguard/runtime";
import { z } from "zod";
import type { FlowRequest } from "./flow.js";

/** The `event_name` of your Stripe meter (billing.meters.create): Stripe counts the events sent under it. */
export const meterEventName = "billed_usage";

export const billingEventSchema = z.strictObject({
  /** The producer's id for this usage: one meter event per id, however often it is delivered. */
  usageId: z.string().min(1).max(200),
  stripeCustomerId: z.string().startsWith("cus_"),
  /** Units used, a positive integer (the meter aggregates them). */
  quantity: z.number().int().positive(),
  /** Unix seconds: when the usage happened (Stripe takes the past 35 days up to 5 minutes ahead). */
  timestamp: z.number().int().positive(),
});

export type BillingEvent = z.infer<typeof billingEventSchema>;

export const billingEvent: BillingEventDefinition<BillingEvent, FlowRequest> = {
  schema: billingEventSchema,
  toBilling: (event) => ({
    key: { usageId: event.usageId },
    // No spend: Stripe prices the meter's usage on the customer's invoice, so there is nothing to reserve here.
    request: () => ({
      eventName: meterEventName,
      stripeCustomerId: event.stripeCustomerId,
      value: event.quantity,
      timestamp: event.timestamp,
    }),
  }),
};
