// A reconciler's client for one billing period, through the same StripeAccess (vault key and cap) as the consumer.
import type Stripe from "stripe";
import type { StripeAccess } from "./stripe-access.js";

/** What a period is expected to bill in total: sizes its vault key's cap (0 when unknown, as the consumer does). */
export type ExpectedPeriodTotal = number | ((billingPeriod: string) => number);

export function periodClient(access: StripeAccess, expected: ExpectedPeriodTotal | undefined): (billingPeriod: string, currency?: string) => Promise<Stripe> {
  // The (period, currency)'s key, as the consumer asks for it: the vault caps each currency apart.
  return (billingPeriod, currency) =>
    access.forPeriod(billingPeriod, {
      expectedTotalCents: typeof expected === "function" ? expected(billingPeriod) : (expected ?? 0),
      ...(currency === undefined ? {} : { currency }),
    });
}
