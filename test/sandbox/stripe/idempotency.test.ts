import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator, type StripeFaultHandle } from "../../../sandbox/stripe/index.js";
import { stripeFor } from "./client.js";

let emulator: StripeEmulator;
let stripe: Stripe;
let customerId: string;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  stripe = stripeFor(emulator);
  customerId = (await stripe.customers.create({})).id;
});
afterAll(() => emulator.stop());

const params = (period: string, amount = 4200): Stripe.PaymentIntentCreateParams => ({
  amount,
  currency: "usd",
  customer: customerId,
  payment_method: "pm_card_visa",
  confirm: true,
  off_session: true,
  metadata: { billing_period: period },
});

/** Resolves once the first request is inside its latency fault, i.e. holds its key. */
async function held(fault: StripeFaultHandle): Promise<void> {
  while (fault.hits === 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("idempotency keys", () => {
  it("replays the saved response for the same key and parameters: same PaymentIntent, one charge", async () => {
    const first = await stripe.paymentIntents.create(params("2026-01"), { idempotencyKey: "bill-2026-01" });
    const second = await stripe.paymentIntents.create(params("2026-01"), { idempotencyKey: "bill-2026-01" });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(first.lastResponse.headers["idempotent-replayed"]).toBeUndefined();
    expect(second.lastResponse.idempotencyKey).toBe("bill-2026-01");
    expect(emulator.ledger.paymentIntents(customerId).filter((pi) => pi.metadata["billing_period"] === "2026-01")).toHaveLength(1);
  });

  it("compares parameters, not their order on the wire", async () => {
    const a = await stripe.paymentIntents.create({ ...params("2026-02"), metadata: { billing_period: "2026-02", x: "1" } }, { idempotencyKey: "order" });
    // Same parameters, keys in another order: the form body differs byte for byte.
    const { metadata: _ignored, ...rest } = params("2026-02");
    const reordered = { metadata: { x: "1", billing_period: "2026-02" }, ...Object.fromEntries(Object.entries(rest).reverse()) } as unknown as Stripe.PaymentIntentCreateParams;
    const b = await stripe.paymentIntents.create(reordered, { idempotencyKey: "order" });
    expect(b.id).toBe(a.id);
  });

  it("answers the same key with other parameters with 400 idempotency_error (StripeIdempotencyError)", async () => {
    await stripe.paymentIntents.create(params("2026-03"), { idempotencyKey: "bill-2026-03" });
    const error = await stripe.paymentIntents.create(params("2026-03", 4300), { idempotencyKey: "bill-2026-03" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(error).toMatchObject({ statusCode: 400, rawType: "idempotency_error" });
    const otherEndpoint = await stripe.customers.create({}, { idempotencyKey: "bill-2026-03" }).catch((e: unknown) => e);
    expect(otherEndpoint).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect((otherEndpoint as Error).message).toContain("same endpoint");
  });

  it("answers a request whose key is still executing with 409 idempotency_key_in_use, not saved", async () => {
    const latency = emulator.faults.inject({ path: "/v1/payment_intents", method: "POST", action: "latency", ms: 400, times: 1 });
    const slow = stripe.paymentIntents.create(params("2026-04"), { idempotencyKey: "bill-2026-04" });
    await held(latency);
    const conflict = await stripe.paymentIntents.create(params("2026-04"), { idempotencyKey: "bill-2026-04" }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(conflict).toMatchObject({ statusCode: 409, code: "idempotency_key_in_use" });
    const done = await slow;
    const after = await stripe.paymentIntents.create(params("2026-04"), { idempotencyKey: "bill-2026-04" });
    expect(after.id).toBe(done.id);
    expect(after.lastResponse.headers["idempotent-replayed"]).toBe("true");
  });

  it("lets the SDK's own retries wait out a 409 and get the replay", async () => {
    const latency = emulator.faults.inject({ path: "/v1/payment_intents", method: "POST", action: "latency", ms: 300, times: 1 });
    const slow = stripe.paymentIntents.create(params("2026-05"), { idempotencyKey: "bill-2026-05" });
    await held(latency);
    const patient = await stripe.paymentIntents.create(params("2026-05"), { idempotencyKey: "bill-2026-05", maxNetworkRetries: 3 });
    expect(patient.id).toBe((await slow).id);
  });

  it("forgets a key after 24 hours on the emulator's clock: the same key charges again", async () => {
    const first = await stripe.paymentIntents.create(params("2026-06"), { idempotencyKey: "bill-2026-06" });
    emulator.clock.advance(24 * 60 * 60 * 1000 - 60_000);
    const within = await stripe.paymentIntents.create(params("2026-06"), { idempotencyKey: "bill-2026-06" });
    expect(within.id).toBe(first.id);
    emulator.clock.advance(60_001);
    const after = await stripe.paymentIntents.create(params("2026-06"), { idempotencyKey: "bill-2026-06" });
    expect(after.id).not.toBe(first.id);
    expect(after.lastResponse.headers["idempotent-replayed"]).toBeUndefined();
    expect(emulator.ledger.duplicateCharges().map((group) => group.key)).toContain(`${customerId} 2026-06`);
  });

  it("replays a saved decline, but saves nothing for a request that failed validation", async () => {
    const declineParams = { ...params("2026-07"), payment_method: "pm_card_chargeDeclined" };
    const first = await stripe.paymentIntents.create(declineParams, { idempotencyKey: "decline-07" }).catch((e: unknown) => e);
    const second = await stripe.paymentIntents.create(declineParams, { idempotencyKey: "decline-07" }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(second).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect((second as Stripe.errors.StripeCardError).payment_intent?.id).toBe((first as Stripe.errors.StripeCardError).payment_intent?.id);
    expect((second as Stripe.errors.StripeCardError).headers?.["idempotent-replayed"]).toBe("true");

    const invalid = await stripe.paymentIntents.create({ ...params("2026-08"), customer: "cus_nobody" }, { idempotencyKey: "fix-08" }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ statusCode: 400, code: "resource_missing", param: "customer" });
    const fixed = await stripe.paymentIntents.create(params("2026-08"), { idempotencyKey: "fix-08" });
    expect(fixed.status).toBe("succeeded");
  });

  it("gives every SDK call without a key its own stripe-node-retry key: two calls, two charges", async () => {
    const a = await stripe.paymentIntents.create(params("2026-09"));
    const b = await stripe.paymentIntents.create(params("2026-09"));
    expect(a.lastResponse.idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(b.lastResponse.idempotencyKey).not.toBe(a.lastResponse.idempotencyKey);
    expect(b.id).not.toBe(a.id);
  });

  it("refuses a key longer than 255 characters", async () => {
    const error = await stripe.paymentIntents.create(params("2026-10"), { idempotencyKey: "k".repeat(256) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 400 });
  });
});
