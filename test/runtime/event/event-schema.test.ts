import { describe, expect, it } from "vitest";
import { maxEventBodyBytes, parseUsageEvent } from "../../../runtime/event/event-schema.js";

const valid = {
  customerId: "acct-42",
  stripeCustomerId: "cus_Abc123",
  paymentMethodId: "pm_card_visa",
  billingPeriod: "2026-10",
  amountCents: 29_900,
  currency: "eur",
};

describe("parseUsageEvent", () => {
  it("accepts a valid event as an object, a string and bytes", () => {
    for (const body of [valid, JSON.stringify(valid), Buffer.from(JSON.stringify(valid)), new TextEncoder().encode(JSON.stringify(valid))]) {
      expect(parseUsageEvent(body)).toEqual({ ok: true, event: valid });
    }
  });

  it.each([
    [{ ...valid, amountCents: 0 }, /^amountCents: /],
    [{ ...valid, amountCents: -5 }, /^amountCents: /],
    [{ ...valid, amountCents: 12.5 }, /^amountCents: .*integer/],
    [{ ...valid, amountCents: Number.MAX_SAFE_INTEGER + 1 }, /^amountCents: /],
    [{ ...valid, amountCents: "100" }, /^amountCents: /],
    [{ ...valid, currency: "EUR" }, /^currency: must be a three-letter ISO 4217 code in lower case/],
    [{ ...valid, currency: "eu" }, /^currency: /],
    [{ ...valid, currency: "kwd", amountCents: 29_905 }, /^amountCents: 29905 is not a valid kwd amount/],
    [{ ...valid, billingPeriod: "2026-13" }, /^billingPeriod: must be a month as YYYY-MM/],
    [{ ...valid, billingPeriod: "2026-10-01" }, /^billingPeriod: /],
    [{ ...valid, customerId: "" }, /^customerId: must not be empty/],
    [{ ...valid, stripeCustomerId: "acct-1" }, /^stripeCustomerId: must be a Stripe customer id/],
    [{ ...valid, paymentMethodId: "tok_visa" }, /^paymentMethodId: must be a Stripe payment method id/],
    [{ ...valid, extra: 1 }, /unknown field\(s\) "extra"/],
    [(({ currency: _currency, ...rest }) => rest)(valid), /^currency: /],
    [[valid], /^body: .*expected object/],
  ])("rejects %j naming the problem", (body, reason) => {
    const result = parseUsageEvent(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it("rejects bad JSON, empty bodies and oversized bodies with a reason", () => {
    expect(parseUsageEvent("{not json")).toMatchObject({ ok: false, reason: expect.stringMatching(/^body: not valid JSON/) });
    expect(parseUsageEvent(Buffer.from("\u00ff\u00fe"))).toMatchObject({ ok: false, reason: expect.stringMatching(/^body: /) });
    expect(parseUsageEvent(undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/^body: missing/) });
    expect(parseUsageEvent(null)).toMatchObject({ ok: false, reason: expect.stringMatching(/^body: missing/) });
    const huge = JSON.stringify({ ...valid, customerId: "x".repeat(maxEventBodyBytes) });
    expect(parseUsageEvent(huge)).toMatchObject({ ok: false, reason: expect.stringMatching(/exceeds the 4096-byte limit/) });
    expect(parseUsageEvent(Buffer.from(huge))).toMatchObject({ ok: false, reason: expect.stringMatching(/exceeds/) });
    expect(parseUsageEvent({ ...valid, customerId: "x".repeat(maxEventBodyBytes) })).toMatchObject({ ok: false });
    const circular: Record<string, unknown> = { ...valid };
    circular.self = circular;
    expect(parseUsageEvent(circular)).toMatchObject({ ok: false, reason: expect.stringMatching(/^body: not serializable/) });
    expect(parseUsageEvent({ ...valid, amountCents: 10n })).toMatchObject({ ok: false });
  });
});
