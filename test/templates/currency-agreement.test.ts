// The scaffolder and the runtime accept the same currencies (the shape, no allow-list): a project scaffolded with
// --currency X bills events in X, and one the runtime would refuse is refused at scaffold time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { currencyProblem as runtimeCurrencyProblem, parseUsageEvent } from "../../runtime/index.js";
import { currencyProblem as scaffoldCurrencyProblem } from "../../templates/names.js";

const event = (currency: string, amountCents = 2_500) => ({
  customerId: "c-1",
  stripeCustomerId: "cus_1",
  paymentMethodId: "pm_card_visa",
  billingPeriod: "2026-10",
  amountCents,
  currency,
});

describe("currencies", () => {
  it("the scaffolder and the runtime's event schema agree on every code", () => {
    const codes = fc.oneof(fc.stringMatching(/^[a-z]{3}$/), fc.string({ maxLength: 5 }));
    fc.assert(
      fc.property(codes, (code) => {
        const scaffolds = scaffoldCurrencyProblem(code) === undefined;
        expect(runtimeCurrencyProblem(code) === undefined).toBe(scaffolds);
        expect(parseUsageEvent(event(code)).ok).toBe(scaffolds);
      }),
    );
  });

  it("takes currencies beyond any short list (Stripe decides), and refuses the wrong shape naming the field", () => {
    for (const code of ["usd", "isk", "kwd", "xof", "ugx", "zar"]) expect(parseUsageEvent(event(code))).toMatchObject({ ok: true });
    expect(parseUsageEvent(event("USD"))).toEqual({ ok: false, reason: "currency: must be a three-letter ISO 4217 code in lower case" });
    expect(scaffoldCurrencyProblem("xyz1")).toMatch(/three-letter/);
  });

  it("enforces Stripe's smallest-unit rules: three-decimal amounts end in 0, isk and ugx are whole units", () => {
    expect(parseUsageEvent(event("jpy", 1_999))).toMatchObject({ ok: true });
    expect(parseUsageEvent(event("kwd", 1_995))).toEqual({ ok: false, reason: expect.stringMatching(/^amountCents: 1995 is not a valid kwd amount/) });
    expect(parseUsageEvent(event("kwd", 1_990))).toMatchObject({ ok: true });
    expect(parseUsageEvent(event("isk", 1_950))).toEqual({ ok: false, reason: expect.stringContaining("multiple of 100") });
    expect(parseUsageEvent(event("isk", 2_000))).toMatchObject({ ok: true });
  });
});
