// Which Stripe failures are final and which leave the charge's existence unknown. Only "declined" and the refusals
// that happen before anything is charged are definite; everything else must be retried with the same key.
import type Stripe from "stripe";
import { describeError } from "../core/describe-error.js";
import { EndpointNotAllowedError, SpendCapExceededError, VaultKeyError } from "../core/errors.js";
import { isStripeErrorOfType, isStripeKeyRefusal, stripeErrorIn } from "./stripe-error.js";

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
  const answer = stripeErrorIn(error);
  // Not an answer from Stripe: we cannot know whether the request reached it.
  if (!answer) return { kind: "unknown", detail: `no answer from Stripe: ${describeError(error)}` };
  return classifyAnswer(answer);
}

/** A Stripe error: a decline, a refusal before anything was done, or unknown. */
function classifyAnswer(error: Stripe.errors.StripeError): StripeFailure {
  const detail = `${error.type}${error.statusCode === undefined ? "" : ` ${error.statusCode}`}${error.code ? ` ${error.code}` : ""}: ${error.message}`;
  if (isStripeErrorOfType(error, "StripeCardError")) {
    return {
      kind: "declined",
      code: error.decline_code || error.code || "card_declined",
      message: error.message,
      ...(error.payment_intent?.id === undefined ? {} : { paymentIntentId: error.payment_intent.id }),
    };
  }
  if (isStripeErrorOfType(error, "StripeIdempotencyError")) return { kind: "invalid", reason: "StripeIdempotencyConflict", detail };
  if (isStripeErrorOfType(error, "StripeInvalidRequestError")) return { kind: "invalid", reason: "StripeInvalidRequest", detail };
  if (isStripeKeyRefusal(error)) {
    return { kind: "configuration", detail };
  }
  // Connection errors and timeouts, 409 idempotency_key_in_use, 429, 5xx and anything unrecognised: the charge may
  // exist. Retrying with the same key is safe and is the only way to find out.
  return { kind: "unknown", detail };
}
