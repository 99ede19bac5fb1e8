// The one Stripe call of the billing flow. A vault proxy answers in Stripe's error shape, so the SDK raises
// StripeRateLimitError / StripePermissionError for the vault's refusals; they are turned into the vault's own
// errors (vault/vault-refusal.ts), so a cap refusal is never mistaken for Stripe's rate limiting (which is retried).
import type Stripe from "stripe";
import { vaultAnswered } from "./vault/vault-refusal.js";
import type { PaymentIntentRequest } from "./payment-intent-params.js";

export async function createPaymentIntent(
  stripe: Stripe,
  params: PaymentIntentRequest,
  idempotencyKey: string,
): Promise<Stripe.PaymentIntent> {
  return vaultAnswered(() => stripe.paymentIntents.create(params, { idempotencyKey }));
}

export { fromVaultRefusal } from "./vault/vault-refusal.js";

