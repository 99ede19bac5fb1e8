import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { UsageEvent } from "../../../runtime/event/usage-event.js";
import { buildPaymentIntentParams, contentHash } from "../../../runtime/stripe/payment-intent-params.js";
import { createStripeClient } from "../../../runtime/stripe/client.js";
import { stripeHostFor } from "../../../runtime/stripe/key-destination.js";

const event: UsageEvent = {
  customerId: "acct-42",
  stripeCustomerId: "cus_Abc123",
  paymentMethodId: "pm_card_visa",
  billingPeriod: "2026-10",
  amountCents: 29_900,
  currency: "eur",
};

describe("buildPaymentIntentParams", () => {
  it("builds an off-session confirmed PaymentIntent with reconciliation metadata", () => {
    expect(buildPaymentIntentParams(event, "billing:v1:abc")).toEqual({
      amount: 29_900,
      currency: "eur",
      customer: "cus_Abc123",
      payment_method: "pm_card_visa",
      confirm: true,
      off_session: true,
      metadata: { idempotency_key: "billing:v1:abc", customer_id: "acct-42", billing_period: "2026-10", content_hash: contentHash(event) },
    });
  });

  it("is a pure function of the event: same event, same params, whenever and however often", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.string({ minLength: 1, maxLength: 30 }), (amountCents, customerId) => {
        const e = { ...event, amountCents, customerId };
        const first = JSON.stringify(buildPaymentIntentParams(e, "k"));
        const copy = JSON.parse(JSON.stringify(e)) as UsageEvent;
        expect(JSON.stringify(buildPaymentIntentParams(copy, "k"))).toBe(first);
      }),
    );
  });

  it("content_hash changes with every field and not with key order", () => {
    const reordered = Object.fromEntries(Object.entries(event).reverse()) as unknown as UsageEvent;
    expect(contentHash(reordered)).toBe(contentHash(event));
    for (const change of [{ amountCents: 29_901 }, { currency: "usd" }, { paymentMethodId: "pm_other" }, { stripeCustomerId: "cus_o" }, { customerId: "x" }, { billingPeriod: "2026-11" }]) {
      expect(contentHash({ ...event, ...change })).not.toBe(contentHash(event));
    }
  });
});

describe("Stripe client settings", () => {
  it("parses STRIPE_API_BASE into host, port and protocol", () => {
    const key = "rk_test_sandbox";
    expect(stripeHostFor(key, "http://127.0.0.1:12111")).toEqual({ host: "127.0.0.1", port: 12111, protocol: "http" });
    expect(stripeHostFor(key, "https://api.stripe.com")).toEqual({ host: "api.stripe.com", port: 443, protocol: "https" });
    expect(() => stripeHostFor(key, "127.0.0.1:12111")).toThrow(/STRIPE_API_BASE must/);
    expect(() => stripeHostFor(key, "ftp://127.0.0.1")).toThrow(/http or https/);
    expect(() => stripeHostFor(key, "http://127.0.0.1:1/v1")).toThrow(/without a path/);
  });

  it("refuses nonsense timeouts and retries", () => {
    expect(() => createStripeClient({ apiKey: "rk_test_sandbox", timeoutMs: 0, maxNetworkRetries: 0 })).toThrow(/timeoutMs/);
    expect(() => createStripeClient({ apiKey: "rk_test_sandbox", timeoutMs: 100, maxNetworkRetries: -1 })).toThrow(/maxNetworkRetries/);
    expect(() => createStripeClient({ apiKey: "", timeoutMs: 100, maxNetworkRetries: 0 })).toThrow(/apiKey/);
    const client = createStripeClient({ apiKey: "rk_test_sandbox", apiBase: "http://127.0.0.1:12111", timeoutMs: 1500, maxNetworkRetries: 1 });
    expect(client.getMaxNetworkRetries()).toBe(1);
  });
});
