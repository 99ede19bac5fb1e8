// Stripe's errors are recognised by their `type`, not `instanceof` (runtime/stripe/stripe-error.ts): the runtime's
// clients come from the SDK's CommonJS build (runtime/sdk/load-stripe.ts), a consumer's `import Stripe from "stripe"`
// from its ESM build, two sets of classes. Real errors, raised by the real SDK against the sandbox's Stripe emulator
// through a client of each build, must classify the same (what `instanceof` on one build got wrong).
import { createRequire } from "node:module";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stripeFault, type DependencyFault } from "../../../runtime/guard/dependency-fault.js";
import { classifyStripeError, type StripeFailure } from "../../../runtime/stripe/classify-error.js";
import { createStripeClient } from "../../../runtime/stripe/client.js";
import { isStripeErrorOfType, knownStripeErrorTypes, stripeErrorIn } from "../../../runtime/stripe/stripe-error.js";
import { startStripeEmulator, type StripeEmulator, type StripeFaultSpec } from "../../../sandbox/stripe/index.js";

let emulator: StripeEmulator;
let customerId: string;
/** The runtime's client (CommonJS build) and the test's own (ESM build), both with the SDK's retries off. */
let clients: { cjs: Stripe; esm: Stripe };

beforeAll(async () => {
  emulator = await startStripeEmulator();
  clients = {
    cjs: createStripeClient({ apiKey: "rk_test_sandbox", apiBase: emulator.apiBase, timeoutMs: 2_000, maxNetworkRetries: 0 }),
    esm: new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, timeout: 2_000, maxNetworkRetries: 0 }),
  };
  customerId = (await clients.esm.customers.create({})).id;
});
afterEach(() => emulator.faults.clear());
afterAll(() => emulator?.stop());

const intent = (period: string, paymentMethod = "pm_card_visa", amount = 990): Stripe.PaymentIntentCreateParams => ({
  amount,
  currency: "usd",
  customer: customerId,
  payment_method: paymentMethod,
  confirm: true,
  off_session: true,
  metadata: { billing_period: period },
});

type Build = keyof typeof clients;

/** The error one call raises through each build's client (a fault injected before each, when given). */
async function raised(call: (stripe: Stripe, build: Build) => Promise<unknown>, fault?: StripeFaultSpec): Promise<Record<Build, unknown>> {
  const errors: Partial<Record<Build, unknown>> = {};
  for (const build of ["cjs", "esm"] as const) {
    if (fault) emulator.faults.inject({ path: "/v1/payment_intents", times: 1, ...fault });
    errors[build] = await call(clients[build], build).then(
      () => expect.unreachable(`${build}: the call succeeded`),
      (error: unknown) => error,
    );
  }
  return errors as Record<Build, unknown>;
}

/** A failure without what differs between two calls: object and request ids, the build in an idempotency key. */
function comparable(failure: StripeFailure): StripeFailure {
  const text = (value: string) => value.replace(/\b(pi|req|cus|ch)_[A-Za-z0-9]+/g, "$1_*").replace(/-(cjs|esm)\b/g, "-*");
  if (failure.kind === "declined") return { ...failure, message: text(failure.message), ...(failure.paymentIntentId ? { paymentIntentId: "pi_*" } : {}) };
  return "detail" in failure ? { ...failure, detail: text(failure.detail) } : failure;
}

describe("Stripe's errors from either build of the SDK classify the same (sandbox emulator)", () => {
  it("the runtime's client is the CommonJS build: its errors are no instances of the ESM build's classes", async () => {
    const { cjs, esm } = await raised((stripe, build) => stripe.paymentIntents.create(intent(`decline-${build}`, "pm_card_chargeDeclined")));
    expect(esm).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(cjs).not.toBeInstanceOf(Stripe.errors.StripeError); // so `instanceof` on the ESM build would miss it
    const commonJs = createRequire(import.meta.url)("stripe") as typeof Stripe;
    expect(cjs).toBeInstanceOf(commonJs.errors.StripeCardError);
  });

  const throttled = { dependency: "stripe", cause: "throttled" } as const;
  const outage = { dependency: "stripe", cause: "outage" } as const;
  type Case = [string, (stripe: Stripe, build: Build) => Promise<unknown>, StripeFaultSpec | undefined, StripeFailure["kind"], DependencyFault | undefined];
  it.each<Case>([
    ["a card declined (402)", (stripe, build) => stripe.paymentIntents.create(intent(`declined-${build}`, "pm_card_chargeDeclined")), undefined, "declined", undefined],
    ["an idempotency key reused with other parameters (400)", async (stripe, build) => {
      await stripe.paymentIntents.create(intent(`idem-${build}`), { idempotencyKey: `k-idem-${build}` });
      return stripe.paymentIntents.create(intent(`idem-${build}`, "pm_card_visa", 991), { idempotencyKey: `k-idem-${build}` });
    }, undefined, "invalid", undefined],
    ["an invalid request (400)", (stripe) => stripe.paymentIntents.retrieve("pi_missing"), undefined, "invalid", undefined],
    ["a revoked key (401)", (stripe, build) => stripe.paymentIntents.create(intent(`revoked-${build}`)), { action: "revokedKey" }, "configuration", undefined],
    ["a rate limit (429)", (stripe, build) => stripe.paymentIntents.create(intent(`429-${build}`)), { action: "rateLimit" }, "unknown", throttled],
    ["a key in use (409)", (stripe, build) => stripe.paymentIntents.create(intent(`409-${build}`), { idempotencyKey: `k-409-${build}` }), { action: "conflict" }, "unknown", undefined],
    ["a server error (500)", (stripe, build) => stripe.paymentIntents.create(intent(`500-${build}`), { idempotencyKey: `k-500-${build}` }), { action: "serverError" }, "unknown", outage],
    // Twice: the SDK retries a reset connection once even with its retries off.
    ["a dropped answer (connection error)", (stripe, build) => stripe.paymentIntents.create(intent(`drop-${build}`)), { action: "commitThenDrop", times: 2 }, "unknown", outage],
  ])("%s", async (_name, call, fault, kind, dependencyFault) => {
    const { cjs, esm } = await raised(call, fault);
    expect(stripeErrorIn(cjs)).toBeDefined();
    expect(stripeErrorIn(cjs)?.type).toBe(stripeErrorIn(esm)?.type);
    const failure = classifyStripeError(esm);
    expect(failure.kind).toBe(kind);
    if (failure.kind === "unknown") expect(failure.detail).not.toMatch(/^no answer from Stripe/); // it was seen as Stripe's answer
    expect(comparable(classifyStripeError(cjs))).toEqual(comparable(failure));
    // What the resilience layer makes of it (a wait on a throttled or down Stripe, or an answer about the request).
    expect(stripeFault(esm)).toEqual(dependencyFault);
    expect(stripeFault(cjs)).toEqual(dependencyFault);
  });
});

describe("stripeErrorIn and isStripeErrorOfType", () => {
  it("know every error class of both builds of the installed SDK, and no other name", () => {
    const commonJs = createRequire(import.meta.url)("stripe") as typeof Stripe;
    const classes = (errors: Record<string, unknown>) => Object.keys(errors).filter((name) => /^[A-Z]/.test(name) && typeof errors[name] === "function").sort();
    expect(classes(Stripe.errors)).toEqual([...knownStripeErrorTypes].sort());
    expect(classes(commonJs.errors)).toEqual([...knownStripeErrorTypes].sort());
  });

  it("take an Error whose type is a Stripe class name, from either build, and nothing else", () => {
    const commonJs = createRequire(import.meta.url)("stripe") as typeof Stripe;
    const v2 = new commonJs.errors.InsufficientFundsError({ message: "no funds" });
    expect(stripeErrorIn(v2)).toBe(v2);
    expect(isStripeErrorOfType(new Stripe.errors.StripeRateLimitError({ message: "slow" }), "StripeRateLimitError")).toBe(true);
    expect(isStripeErrorOfType(new commonJs.errors.StripeRateLimitError({ message: "slow" }), "StripeRateLimitError")).toBe(true);
    expect(isStripeErrorOfType(new commonJs.errors.RateLimitError({ message: "slow" }), "StripeRateLimitError")).toBe(false);
    expect(stripeErrorIn(Object.assign(new Error("boom"), { type: "TypeError" }))).toBeUndefined();
    expect(stripeErrorIn({ type: "StripeCardError", message: "not an Error" })).toBeUndefined();
    expect(stripeErrorIn(Object.assign(new Error("x"), { type: "toString" }))).toBeUndefined();
    expect(stripeErrorIn(undefined)).toBeUndefined();
  });
});
