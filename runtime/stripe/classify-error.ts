// Which Stripe failures are final and which leave the charge's existence unknown. Only "declined" and the refusals
// that happen before anything is charged are definite; everything else must be retried with the same key.
import Stripe from "stripe";
import { describeError } from "../describe-error.js";
import { EndpointNotAllowedError, SpendCapExceededError, VaultKeyError } from "../vault/errors.js";

export type StripeFailure =
  | { kind: "declined"; code: string; message: string; paymentIntentId?: string }
  | { kind: "unknown"; detail: string }
  | { kind: "invalid"; reason: "StripeIdempotencyConflict" | "StripeInvalidRequest"; detail: string }
  | { kind: "configuration"; detail: string }
  | { kind: "spend-cap"; detail: string };

export function classifyStripeError(error: unknown): StripeFailure {
  if (error instanceof SpendCapExceededError) return { kind: "spend-cap", detail: error.message };
  if (error instanceof EndpointNotAllowedError || error instanceof VaultKeyError) {
    return { kind: "configuration", detail: `${error.name}: ${error.message}` };
  }
  if (!(error instanceof Stripe.errors.StripeError)) {
    // Not an answer from Stripe: we cannot know whether the request reached it.
    return { kind: "unknown", detail: `no answer from Stripe: ${describeError(error)}` };
  }
  const detail = `${error.type}${error.statusCode === undefined ? "" : ` ${error.statusCode}`}${error.code ? ` ${error.code}` : ""}: ${error.message}`;
  if (error instanceof Stripe.errors.StripeCardError) {
    return {
      kind: "declined",
      code: error.decline_code || error.code || "card_declined",
      message: error.message,
      ...(error.payment_intent?.id === undefined ? {} : { paymentIntentId: error.payment_intent.id }),
    };
  }
  if (error instanceof Stripe.errors.StripeIdempotencyError) return { kind: "invalid", reason: "StripeIdempotencyConflict", detail };
  if (error instanceof Stripe.errors.StripeInvalidRequestError) return { kind: "invalid", reason: "StripeInvalidRequest", detail };
  if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) {
    return { kind: "configuration", detail };
  }
  // Connection errors and timeouts, 409 idempotency_key_in_use, 429, 5xx and anything unrecognised: the charge may
  // exist. Retrying with the same key is safe and is the only way to find out.
  return { kind: "unknown", detail };
}
