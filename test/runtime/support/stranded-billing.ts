// A PaymentIntent billing as a consumer that died after its claim leaves it: claimed, no answer recorded, pending and
// released for the reconciler (Guard.run with work that fails without a verdict, as a lost answer does).
import type { Guard } from "../../../runtime/guard/guard.js";

export interface StrandedBilling {
  customerId: string;
  billingPeriod: string;
  amountCents: number;
  currency: string;
  idempotencyKey: string;
  request: Record<string, unknown>;
}

export async function strandBilling(guard: Guard, billing: StrandedBilling, owner = "consumer-that-died"): Promise<void> {
  const outcome = await guard.run(
    {
      scope: "billing",
      flow: "payment-intent",
      key: { customerId: billing.customerId, billingPeriod: billing.billingPeriod },
      payload: billing.request,
      spend: { period: billing.billingPeriod, currency: billing.currency, amount: billing.amountCents },
      idempotencyKey: billing.idempotencyKey,
      owner,
    },
    () => Promise.reject(new Error("the consumer died before recording Stripe's answer")),
  );
  if (outcome.kind !== "unknown") throw new Error(`expected the billing left unknown, got ${outcome.kind}`);
}
