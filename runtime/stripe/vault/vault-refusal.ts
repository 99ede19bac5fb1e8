// A vault proxy answers in Stripe's error shape, so the SDK raises StripeRateLimitError (429) / StripePermissionError
// (403) for the vault's refusals. They are the vault's answers about this request, not Stripe's: turned into the
// vault's own errors at the call itself (every flow's calls, flows/flow-adapter.ts), before the rate governor or a
// classifier sees them, so a cap refusal is never taken for Stripe's rate limiting (retried, and cutting the rate).
import { stripeErrorIn } from "../stripe-error.js";
import { EndpointNotAllowedError, SpendCapExceededError, VaultKeyError } from "../../core/errors.js";
import { vaultErrorCodes } from "./vault-error-codes.js";

/** A vault proxy's refusal as a vault error; anything else unchanged. */
export function fromVaultRefusal(error: unknown): unknown {
  const answer = stripeErrorIn(error);
  if (!answer) return error;
  switch (answer.code) {
    case vaultErrorCodes.spendCapExceeded:
      return new SpendCapExceededError(`vault key spend cap: ${answer.message}`, { cause: error });
    case vaultErrorCodes.endpointNotAllowed:
      return new EndpointNotAllowedError(`vault key endpoint allowlist: ${answer.message}`, { cause: error });
    case vaultErrorCodes.keyExpired:
    case vaultErrorCodes.keyUnknown:
      return new VaultKeyError(`vault key: ${answer.message}`, { cause: error });
    default:
      return error;
  }
}

/** Runs one Stripe call; a vault's refusal leaves it as the vault's error. */
export async function vaultAnswered<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fromVaultRefusal(error);
  }
}
