// Stripe's errors as guard classes, the same for every flow but what a flow says otherwise (meter duplicates,
// finalized invoices). Only a decline and the refusals before anything is done are definite; the rest is unknown.
import { classifyStripeError } from "../stripe/classify-error.js";
import type { GuardErrorClass } from "../guard/guarded-run.js";

/** The reason a configuration refusal carries, so the consumer dead-letters it as one (not as a bad request). */
export const configurationReason = "StripeConfigurationError";

export function stripeErrorClass(error: unknown): GuardErrorClass {
  const failure = classifyStripeError(error);
  switch (failure.kind) {
    case "declined":
      return {
        kind: "declined",
        reason: `${failure.code}: ${failure.message}`,
        ...(failure.paymentIntentId === undefined ? {} : { objectId: failure.paymentIntentId }),
      };
    case "invalid":
      // A 400 other than an idempotency error: Stripe refused the request itself, so it holds nothing under its key.
      return { kind: "invalid", reason: failure.reason, detail: failure.detail, ...(failure.reason === "StripeInvalidRequest" ? { refusedUnderKey: true } : {}) };
    case "configuration":
      return { kind: "invalid", reason: configurationReason, detail: failure.detail };
    case "spend-cap":
      return { kind: "cap-exceeded", reason: `SpendCapExceeded: ${failure.detail}` };
    case "unknown":
      return { kind: "unknown", detail: failure.detail };
  }
}
