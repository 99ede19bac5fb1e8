// The one Stripe call of the billing flow. A vault proxy answers in Stripe's error shape, so the SDK raises
// StripeRateLimitError / StripePermissionError for the vault's refusals; they are turned into the vault's own
// errors here, so a cap refusal is never mistaken for Stripe's rate limiting (which is retried).
import Stripe from "stripe";
import { EndpointNotAllowedError, SpendCapExceededError, VaultKeyError, vaultErrorCodes } from "../vault/errors.js";
import type { PaymentIntentRequest } from "./payment-intent-params.js";

export async function createPaymentIntent(
  stripe: Stripe,
  params: PaymentIntentRequest,
  idempotencyKey: string,
): Promise<Stripe.PaymentIntent> {
  try {
    return await stripe.paymentIntents.create(params, { idempotencyKey });
  } catch (error) {
    throw fromVaultRefusal(error);
  }
}

/** A vault proxy's refusal as a vault error; anything else unchanged. */
export function fromVaultRefusal(error: unknown): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  switch (error.code) {
    case vaultErrorCodes.spendCapExceeded:
      return new SpendCapExceededError(`vault key spend cap: ${error.message}`, { cause: error });
    case vaultErrorCodes.endpointNotAllowed:
      return new EndpointNotAllowedError(`vault key endpoint allowlist: ${error.message}`, { cause: error });
    case vaultErrorCodes.keyExpired:
    case vaultErrorCodes.keyUnknown:
      return new VaultKeyError(`vault key: ${error.message}`, { cause: error });
    default:
      return error;
  }
}
