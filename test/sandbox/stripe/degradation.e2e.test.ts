// The Stripe emulator's sustained degradation through the real `stripe` SDK: rate limits (global, per endpoint,
// concurrency) answered 429 `rate_limit` with Stripe-Rate-Limited-Reason, never executed; outage windows (503, 500,
// no answer) and timed plans.
import { setTimeout as sleep } from "node:timers/promises";
import Stripe from "stripe";
import { afterEach, describe, expect, it } from "vitest";
import { endpointOf, startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { stripeFor } from "./client.js";

let emulator: StripeEmulator | undefined;
afterEach(async () => {
  await emulator?.stop();
  emulator = undefined;
});

const params = (customer: string, n: number): Stripe.PaymentIntentCreateParams => ({
  amount: 500 + n,
  currency: "usd",
  customer,
  payment_method: "pm_card_visa",
  confirm: true,
  off_session: true,
});

async function settled<T>(calls: Promise<T>[]): Promise<{ ok: T[]; errors: unknown[] }> {
  const results = await Promise.allSettled(calls);
  return {
    ok: results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : [])),
    errors: results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : [])),
  };
}

describe("rate limit", () => {
  it("past the global burst: 429 StripeRateLimitError rate_limit with the reason header, nothing executed or saved", async () => {
    emulator = await startStripeEmulator({ rateLimit: { global: { perSecond: 2, burst: 3 } } });
    const stripe = stripeFor(emulator, { maxNetworkRetries: 0 });
    const customer = (await stripe.customers.create({})).id; // takes one of the three
    const { ok, errors } = await settled([0, 1, 2, 3].map((n) => stripe.paymentIntents.create(params(customer, n), { idempotencyKey: `rl-${n}` })));
    expect(ok).toHaveLength(2);
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
      expect((error as Stripe.errors.StripeError).code).toBe("rate_limit");
      expect((error as Stripe.errors.StripeError).headers?.["stripe-rate-limited-reason"]).toBe("global-rate");
    }
    expect(emulator.ledger.paymentIntents(customer)).toHaveLength(2);
    // A throttled key was not saved: the same keys execute once the bucket refilled.
    await sleep(1_100);
    const refusedKeys = [0, 1, 2, 3].filter((n) => !ok.some((intent) => intent.amount === 500 + n));
    for (const n of refusedKeys) await stripe.paymentIntents.create(params(customer, n), { idempotencyKey: `rl-${n}` });
    expect(emulator.ledger.paymentIntents(customer)).toHaveLength(4);
    expect(emulator.degradation.stats).toMatchObject({ throttled: 2, admitted: 5 });
  });

  it("per endpoint: one endpoint's limit leaves another endpoint alone", async () => {
    emulator = await startStripeEmulator({ rateLimit: { perEndpoint: { perSecond: 2 } } });
    const stripe = stripeFor(emulator, { maxNetworkRetries: 0 });
    const customer = (await stripe.customers.create({})).id;
    const creates = await settled([0, 1, 2, 3].map((n) => stripe.paymentIntents.create(params(customer, n))));
    expect(creates.ok).toHaveLength(2);
    expect((creates.errors[0] as Stripe.errors.StripeError).headers?.["stripe-rate-limited-reason"]).toBe("endpoint-rate");
    // Reading a PaymentIntent is another endpoint with its own budget.
    const id = (creates.ok[0] as Stripe.PaymentIntent).id;
    const reads = await settled([0, 1].map(() => stripe.paymentIntents.retrieve(id)));
    expect(reads.ok).toHaveLength(2);
    expect(endpointOf("GET", `/v1/payment_intents/${id}`)).toBe("GET /v1/payment_intents/:id");
  });

  it("concurrency: requests executing at once past the limit are refused global-concurrency", async () => {
    emulator = await startStripeEmulator({ rateLimit: { concurrency: 2 } });
    emulator.faults.inject({ path: "/v1/payment_intents", action: "latency", ms: 300 });
    const stripe = stripeFor(emulator, { maxNetworkRetries: 0 });
    const customer = (await stripe.customers.create({})).id;
    const { ok, errors } = await settled([0, 1, 2, 3, 4].map((n) => stripe.paymentIntents.create(params(customer, n))));
    expect(ok).toHaveLength(2);
    expect(errors.map((e) => (e as Stripe.errors.StripeError).headers?.["stripe-rate-limited-reason"])).toEqual(Array(3).fill("global-concurrency"));
    // Once they are answered the slots are free again.
    await expect(stripe.paymentIntents.create(params(customer, 9))).resolves.toMatchObject({ status: "succeeded" });
  });
});

describe("outage", () => {
  it("503 while down (the SDK's retries meet it too), then up again when the window ends", async () => {
    emulator = await startStripeEmulator({ outage: { answer: 503, durationMs: 2_000 } });
    const stripe = stripeFor(emulator, { maxNetworkRetries: 1 });
    const error = await stripe.customers.create({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect((error as Stripe.errors.StripeError).statusCode).toBe(503);
    expect(emulator.degradation.stats.outageRefused).toBe(2);
    await sleep(2_050);
    await expect(stripe.customers.create({})).resolves.toMatchObject({ object: "customer" });
  });

  it("no answer: the client's own timeout ends the request; a 500 outage set while running; end() lifts it", async () => {
    emulator = await startStripeEmulator();
    const impatient = stripeFor(emulator, { timeout: 300, maxNetworkRetries: 0 });
    emulator.degradation.outage({ answer: "no-answer" });
    await expect(impatient.customers.create({})).rejects.toBeInstanceOf(Stripe.errors.StripeConnectionError);
    emulator.degradation.outage({ answer: 500 });
    await expect(impatient.customers.create({})).rejects.toMatchObject({ statusCode: 500 });
    emulator.degradation.endOutage();
    await expect(impatient.customers.create({})).resolves.toMatchObject({ object: "customer" });
  });

  it("a timed plan: down, then limited, then unlimited", async () => {
    emulator = await startStripeEmulator();
    const stripe = stripeFor(emulator, { maxNetworkRetries: 0 });
    emulator.degradation.plan([
      { atMs: 0, outage: { answer: 503 } },
      { atMs: 200, outage: null, rateLimit: { global: { perSecond: 1, burst: 1 } } },
      { atMs: 400, rateLimit: null },
    ]);
    await sleep(50);
    await expect(stripe.customers.create({})).rejects.toMatchObject({ statusCode: 503 });
    await sleep(200);
    const limited = await settled([0, 1].map(() => stripe.customers.create({})));
    expect([limited.ok.length, limited.errors.length]).toEqual([1, 1]);
    await sleep(250);
    expect((await settled([0, 1, 2].map(() => stripe.customers.create({})))).ok).toHaveLength(3);
  });

  it("refuses a bad spec with a message naming it", async () => {
    await expect(startStripeEmulator({ rateLimit: { global: { perSecond: 0 } } })).rejects.toThrow(/global.perSecond must be a positive number/);
    emulator = await startStripeEmulator();
    expect(() => emulator?.degradation.outage({ answer: 404 as never })).toThrow(/outage answer must be 500, 503 or "no-answer"/);
  });
});
