// What identifies one billing in each flow's generated project: the guard's record identity, which `new consumer
// --help` states per flow. A second event with the same identity and other parameters is refused
// (BillingRecordMismatch, naming the fields that differ), so a team must know, before its first event, whether two
// usage events of one customer in one month are two billings or one. test/templates/billing-identity.test.ts holds
// each entry to the key the flow's src/event.ts (or, for payment-intent, the runtime's usage event) derives.
import type { FlowChoice } from "./scaffold.js";

export interface BillingIdentity {
  /** The event's fields that make two events the same billing. */
  fields: readonly string[];
  /** What that means for the team, in a few words. */
  means: string;
}

export const billingIdentities: Readonly<Record<FlowChoice, BillingIdentity>> = {
  "payment-intent": { fields: ["customerId", "billingPeriod"], means: "one PaymentIntent per customer per month (the runtime's usage event)" },
  charge: { fields: ["customerId", "billingPeriod"], means: "one charge per customer per month (src/event.ts)" },
  invoice: { fields: ["usageId"], means: "one invoice per usage event (src/event.ts)" },
  "meter-event": { fields: ["usageId"], means: "one meter event per usage event (src/event.ts)" },
};

/** The lines `new consumer --help` prints. */
export function billingIdentityHelp(): string {
  const rows = Object.entries(billingIdentities).map(([flow, identity]) => `  ${flow.padEnd(15)} ${identity.fields.join(" + ").padEnd(27)} ${identity.means}`);
  return [
    "",
    "What identifies one billing, per flow (the guard's record; a second event with the same identity and other",
    "parameters is refused as BillingRecordMismatch, naming the fields that differ):",
    ...rows,
    "Under customerId + billingPeriod, two usage events of one customer in one month are one billing: to bill each,",
    "key on the event's own id (src/event.ts's key with --flow charge; an event definition passed to",
    "startBillingConsumer with payment-intent, as chargeguard's runtime README shows).",
  ].join("\n");
}
