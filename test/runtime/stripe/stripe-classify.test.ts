import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { classifyStripeError } from "../../../runtime/stripe/classify-error.js";
import { fromVaultRefusal } from "../../../runtime/stripe/create-payment-intent.js";
import { EndpointNotAllowedError, SpendCapExceededError, VaultKeyError } from "../../../runtime/core/errors.js";

const { errors } = Stripe;

describe("classifyStripeError", () => {
  it("a card error is a decline, with its code and PaymentIntent", () => {
    const error = new errors.StripeCardError({
      message: "Your card was declined.",
      code: "card_declined",
      decline_code: "generic_decline",
      statusCode: 402,
      payment_intent: { id: "pi_123" } as Stripe.PaymentIntent,
    });
    expect(classifyStripeError(error)).toEqual({ kind: "declined", code: "generic_decline", message: "Your card was declined.", paymentIntentId: "pi_123" });
    const auth = new errors.StripeCardError({ message: "needs auth", code: "authentication_required", statusCode: 402 });
    expect(classifyStripeError(auth)).toMatchObject({ kind: "declined", code: "authentication_required" });
  });

  it.each([
    ["connection error / timeout", new errors.StripeConnectionError({ message: "Request aborted due to timeout being reached (1000ms)" })],
    ["5xx", new errors.StripeAPIError({ message: "boom", statusCode: 500 })],
    ["503", new errors.StripeAPIError({ message: "unavailable", statusCode: 503 })],
    ["409 idempotency_key_in_use", new errors.StripeAPIError({ message: "in use", statusCode: 409, code: "idempotency_key_in_use" })],
    ["429 rate limit", new errors.StripeRateLimitError({ message: "slow down", statusCode: 429 })],
    ["a socket reset that is not a Stripe error", Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })],
    ["a thrown string", "weird"],
  ])("%s is unknown", (_name, error) => {
    expect(classifyStripeError(error).kind).toBe("unknown");
  });

  it("idempotency and invalid request errors are invalid, naming the problem", () => {
    expect(classifyStripeError(new errors.StripeIdempotencyError({ message: "Keys for idempotent requests can only be used with the same parameters", statusCode: 400 }))).toMatchObject({
      kind: "invalid",
      reason: "StripeIdempotencyConflict",
      detail: expect.stringMatching(/same parameters/),
    });
    expect(classifyStripeError(new errors.StripeInvalidRequestError({ message: "No such customer: 'cus_x'", statusCode: 400, param: "customer" }))).toMatchObject({
      kind: "invalid",
      reason: "StripeInvalidRequest",
      detail: expect.stringMatching(/No such customer/),
    });
  });

  it("permission and authentication errors are configuration errors", () => {
    expect(classifyStripeError(new errors.StripePermissionError({ message: "The provided key does not have access", statusCode: 403 })).kind).toBe("configuration");
    expect(classifyStripeError(new errors.StripeAuthenticationError({ message: "Invalid API Key", statusCode: 401 })).kind).toBe("configuration");
  });

  it("vault refusals: cap -> spend-cap, endpoint and key -> configuration", () => {
    expect(classifyStripeError(new SpendCapExceededError("over"))).toEqual({ kind: "spend-cap", detail: "over" });
    expect(classifyStripeError(new EndpointNotAllowedError("no"))).toMatchObject({ kind: "configuration", detail: "EndpointNotAllowedError: no" });
    expect(classifyStripeError(new VaultKeyError("expired"))).toMatchObject({ kind: "configuration" });
  });
});

describe("fromVaultRefusal", () => {
  it("turns a proxy's vault_* answers into vault errors and leaves Stripe's own alone", () => {
    const cap = new errors.StripeRateLimitError({ message: "over cap", statusCode: 429, code: "vault_spend_cap_exceeded" });
    expect(fromVaultRefusal(cap)).toBeInstanceOf(SpendCapExceededError);
    const endpoint = new errors.StripePermissionError({ message: "blocked", statusCode: 403, code: "vault_endpoint_not_allowed" });
    expect(fromVaultRefusal(endpoint)).toBeInstanceOf(EndpointNotAllowedError);
    const expired = new errors.StripeAuthenticationError({ message: "expired", statusCode: 401, code: "vault_key_expired" });
    expect(fromVaultRefusal(expired)).toBeInstanceOf(VaultKeyError);
    const rateLimit = new errors.StripeRateLimitError({ message: "slow down", statusCode: 429, code: "rate_limit" });
    expect(fromVaultRefusal(rateLimit)).toBe(rateLimit);
  });
});
