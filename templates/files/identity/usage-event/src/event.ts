// The events this consumer bills and what identifies one billing, chosen when the project was generated
// (`--billing-identity usage-event`): chargeguard's usage event with the producer's own `usageId`, one PaymentIntent
// per usage event. Two events of one customer in one month are two charges; the same event sent twice (a
// redelivery, a resend) is one; the same usageId with another amount or currency is dead-lettered
// BillingRecordMismatch, naming the fields that differ. Yours to edit: the key below is the record's identity and
// the Stripe idempotency key's only input.
import { type BillingEventDefinition, parseUsageEvent, type UsageEvent } from "chargeguard/runtime";
import { buildPaymentIntentParams, type PaymentIntentRequest } from "chargeguard/runtime/flows";
import { z } from "zod";

export const billingEventSchema = z
  .looseObject({
    /** The producer's id for this usage: the same for every send of one event, never a new one per send. */
    usageId: z.string().min(1, "must not be empty").max(200, "must be at most 200 characters"),
  })
  // The other fields are chargeguard's usage event, checked by the runtime's own schema (unknown fields refused).
  .transform((value, context) => {
    const { usageId, ...usage } = value;
    const parsed = parseUsageEvent(usage);
    if (parsed.ok) return { usageId, ...parsed.event };
    context.addIssue({ code: "custom", message: parsed.reason });
    return z.NEVER;
  });

export type BillingEvent = UsageEvent & { usageId: string };

export const billingEvent: BillingEventDefinition<BillingEvent, PaymentIntentRequest> = {
  schema: billingEventSchema,
  toBilling: ({ usageId, ...usage }) => ({
    key: { usageId },
    // Reserved against the period's cap (BILLING_PERIOD_CAP_CENTS, per currency) before Stripe is called.
    spend: { period: usage.billingPeriod, currency: usage.currency, amount: usage.amountCents },
    request: (idempotencyKey) => buildPaymentIntentParams(usage, idempotencyKey),
  }),
};
