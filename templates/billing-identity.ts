// What identifies one billing in a generated project: the guard's record identity and the fields its Stripe
// idempotency key derives from. A second event with the same identity and other parameters is refused
// (BillingRecordMismatch, naming the fields that differ), so the team chooses, before its first event, whether two
// usage events of one customer in one month are two billings (`usage-event`: the event's own `usageId`) or one
// (`customer-period`: one aggregated charge per customer per month), and `new consumer --help` says it per flow.
// test/templates/billing-identity.test.ts holds each entry to the key the generated src/event.ts derives.
import type { FlowChoice } from "./scaffold.js";

export const billingIdentityChoices = ["usage-event", "customer-period"] as const;
export type BillingIdentityChoice = (typeof billingIdentityChoices)[number];

export interface BillingIdentity {
  /** The event's fields that make two events the same billing. */
  fields: readonly string[];
  /** What that means for the team, in a few words. */
  means: string;
}

export const billingIdentityOf: Readonly<Record<BillingIdentityChoice, BillingIdentity>> = {
  "usage-event": { fields: ["usageId"], means: "one billing per usage event" },
  "customer-period": { fields: ["customerId", "billingPeriod"], means: "one aggregated billing per customer per month" },
};

/**
 * The identities each flow's template can be generated with, the default first. Usage billing charges each usage
 * event by default; customer-period (one aggregated charge per month) is said out loud. The committed example
 * (examples/generated-consumer, the proving ground's contender) is generated with customer-period: the workload sends
 * the runtime's usage event, which has no usageId.
 */
export const flowBillingIdentities: Readonly<Record<FlowChoice, readonly BillingIdentityChoice[]>> = {
  "payment-intent": ["usage-event", "customer-period"],
  charge: ["customer-period"],
  invoice: ["usage-event"],
  "meter-event": ["usage-event"],
};

/** What identifies one billing in each flow's default project (the first of its choices). */
export const billingIdentities: Readonly<Record<FlowChoice, BillingIdentity>> = Object.fromEntries(
  Object.entries(flowBillingIdentities).map(([flow, choices]) => [flow, billingIdentityOf[choices[0] as BillingIdentityChoice]]),
) as Record<FlowChoice, BillingIdentity>;

/** The problem with `--billing-identity` for this flow, or undefined. */
export function billingIdentityProblem(flow: FlowChoice, identity: string): string | undefined {
  if (!billingIdentityChoices.includes(identity as BillingIdentityChoice)) {
    return `--billing-identity must be one of ${billingIdentityChoices.join(", ")}, got "${identity}"`;
  }
  const allowed = flowBillingIdentities[flow];
  if (allowed === undefined || allowed.includes(identity as BillingIdentityChoice)) return undefined;
  return `--billing-identity ${identity} is not offered for --flow ${flow} (its src/event.ts keys on ${allowed.join(" or ")}: edit the key there)`;
}

const describe = (identity: BillingIdentityChoice) => `${identity} (${billingIdentityOf[identity].fields.join(" + ")})`;

/** The lines `new consumer --help` prints. */
export function billingIdentityHelp(): string {
  const rows = Object.entries(flowBillingIdentities).map(([flow, choices]) => {
    const [first, ...others] = choices as readonly BillingIdentityChoice[];
    const other = others.length > 0 ? `; or ${others.map(describe).join(", ")}` : "";
    return `  ${flow.padEnd(15)} ${describe(first as BillingIdentityChoice)}, by default${other}`;
  });
  return [
    "",
    "What identifies one billing (--billing-identity), per flow: the guard's record and the Stripe idempotency key.",
    "usage-event: each usage event (its usageId) is one billing, so two events of one customer in one month are two",
    "charges and one event sent twice is one; customer-period: one aggregated billing per customer per month, and a",
    "second event with the same identity and other parameters is dead-lettered BillingRecordMismatch, naming the fields.",
    ...rows,
  ].join("\n");
}

/** The generated files' placeholders that say the identity (src/settings.ts, README.md). */
export function identityPlaceholders(identity: BillingIdentityChoice): Record<string, string> {
  const usageEvent = identity === "usage-event";
  return {
    __BILLING_IDENTITY__: identity,
    __KEY_FIELDS__: usageEvent ? "`usageId`" : "`customerId`, `billingPeriod`, `amountCents`, `currency`",
    __RECORD_IDENTITY__: usageEvent ? "one row per usage event" : "one row per customer and billing period",
    __IDENTITY_README__: usageEvent
      ? "**What identifies one billing: `usageId`** (generated with `--billing-identity usage-event`). Each usage event\n" +
        "is one billing: two events of one customer in one month are two charges, the same event sent twice is one, and\n" +
        "an event whose `usageId` is already billed with another amount is dead-lettered `BillingRecordMismatch`, its\n" +
        "description naming the fields that differ. The schema and the key are in `src/event.ts`; `usageId` must be the\n" +
        "producer's own id for the usage, the same on every send, or a resend is billed again."
      : "**What identifies one billing: `customerId` + `billingPeriod`** (generated with `--billing-identity\n" +
        "customer-period`). Two usage events of one customer in one month are one billing: the first is charged, the same\n" +
        "event again is already billed, and one with another amount is dead-lettered `BillingRecordMismatch`, its\n" +
        "description naming the fields that differ. That is one aggregated charge per customer per month; to charge each\n" +
        "usage event on its own, generate with `--billing-identity usage-event` (the event then carries a `usageId`).",
    __EVENT_USAGE_ID__: usageEvent ? '"usageId": "usage-1", ' : "",
    __EVENT_USAGE_ID_RULE__: usageEvent ? "; `usageId` is the producer's id for the usage (1-200 characters)" : "",
    __SEND_USAGE_ID__: usageEvent ? " --usage-id usage-1" : "",
    __SEND_AGAIN__: usageEvent
      ? "sending the same `--usage-id` again (add `--stripe-customer cus_...` from the first send) charges nothing twice;\nanother `--usage-id` for the same customer and month is a second charge"
      : "sending the same customer and period again (add\n`--stripe-customer cus_...` from the first send) charges nothing twice",
  };
}
