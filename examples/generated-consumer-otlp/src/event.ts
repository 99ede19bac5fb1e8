// The events this consumer bills and what identifies one billing, chosen when the project was generated
// (`--billing-identity customer-period`): chargeguard's usage event, one PaymentIntent per customer per billing
// period. A second event of the same customer and month is the same billing: already billed when it is the same
// event, dead-lettered BillingRecordMismatch (naming the fields that differ) when its amount or currency differs.
// To bill each usage event on its own, generate with `--billing-identity usage-event` (the event carries a usageId).
import { type UsageEvent, usageEventBilling } from "chargeguard/runtime";

export type BillingEvent = UsageEvent;

/** The record's identity is `{ customerId, billingPeriod }`; the Stripe key derives from it with the amount and currency. */
export const billingEvent = usageEventBilling;
