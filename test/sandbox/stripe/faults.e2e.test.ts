import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { stripeFor } from "./client.js";

let emulator: StripeEmulator;
let stripe: Stripe;
let customerId: string;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  stripe = stripeFor(emulator);
  customerId = (await stripe.customers.create({})).id;
});
afterEach(() => emulator.faults.clear());
afterAll(() => emulator.stop());

const params = (period: string): Stripe.PaymentIntentCreateParams => ({
  amount: 990,
  currency: "usd",
  customer: customerId,
  payment_method: "pm_card_visa",
  confirm: true,
  off_session: true,
  metadata: { billing_period: period },
});
const intentsFor = (period: string) => emulator.ledger.paymentIntents(customerId).filter((pi) => pi.metadata["billing_period"] === period);

describe("fault injection", () => {
  it("commitThenDrop: the PaymentIntent exists, the client sees StripeConnectionError", async () => {
    // Two drops: the SDK retries a reset connection once even with retries off, and the replay is dropped too.
    const fault = emulator.faults.inject({ path: "/v1/payment_intents", method: "POST", action: "commitThenDrop", times: 2 });
    const error = await stripe.paymentIntents.create(params("drop-1")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(fault.hits).toBe(2);
    const [intent, ...others] = intentsFor("drop-1");
    expect(others).toHaveLength(0);
    expect(intent?.status).toBe("succeeded");
  });

  it("the SDK's own retry after a dropped connection reuses its stripe-node-retry key and gets the replay", async () => {
    emulator.faults.inject({ path: "/v1/payment_intents", method: "POST", action: "commitThenDrop", times: 1 });
    const intent = await stripe.paymentIntents.create(params("drop-2"));
    expect(intent.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(intent.lastResponse.idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(intentsFor("drop-2").map((pi) => pi.id)).toEqual([intent.id]);
  });

  it("a new call after a lost response is a new key: the second charge the seeds warn about", async () => {
    emulator.faults.inject({ path: "/v1/payment_intents", method: "POST", action: "commitThenDrop", times: 2 });
    await expect(stripe.paymentIntents.create(params("drop-3"))).rejects.toBeInstanceOf(Stripe.errors.StripeConnectionError);
    await stripe.paymentIntents.create(params("drop-3"));
    expect(intentsFor("drop-3")).toHaveLength(2);
    expect(emulator.ledger.duplicateCharges().find((group) => group.key === `${customerId} drop-3`)?.charges).toHaveLength(2);
  });

  it("commitThenHang: the client's timeout fires after the charge was made", async () => {
    emulator.faults.inject({ path: "/v1/payment_intents", action: "commitThenHang", times: 1 });
    const impatient = stripeFor(emulator, { timeout: 1_000 });
    const error = await impatient.paymentIntents.create(params("hang-1")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect((error as Error).message).toContain("timeout");
    expect(intentsFor("hang-1")).toHaveLength(1);
  });

  it("serverError saved:false is a 500 before the endpoint ran: the SDK's retry executes, one charge", async () => {
    const fault = emulator.faults.inject({ path: "/v1/payment_intents", method: "POST", action: "serverError", saved: false, times: 1 });
    const retrying = stripeFor(emulator, { maxNetworkRetries: 1 });
    const intent = await retrying.paymentIntents.create(params("500-1"), { idempotencyKey: "k-500-1" });
    expect(fault.hits).toBe(1);
    expect(intent.status).toBe("succeeded");
    expect(intentsFor("500-1")).toHaveLength(1);
  });

  it("serverError (saved, as Stripe does) is replayed for the key; only a new key charges", async () => {
    emulator.faults.inject({ path: "/v1/payment_intents", method: "POST", action: "serverError", times: 1 });
    const retrying = stripeFor(emulator, { maxNetworkRetries: 2 });
    const first = await retrying.paymentIntents.create(params("500-2"), { idempotencyKey: "k-500-2" }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(first).toMatchObject({ statusCode: 500 });
    const again = await retrying.paymentIntents.create(params("500-2"), { idempotencyKey: "k-500-2" }).catch((e: unknown) => e);
    expect(again).toMatchObject({ statusCode: 500 });
    expect((again as Stripe.errors.StripeAPIError).headers?.["idempotent-replayed"]).toBe("true");
    expect(intentsFor("500-2")).toHaveLength(0);
    await retrying.paymentIntents.create(params("500-2"), { idempotencyKey: "k-500-2b" });
    expect(intentsFor("500-2")).toHaveLength(1);
  });

  it("rateLimit answers 429: StripeRateLimitError, nothing created", async () => {
    emulator.faults.inject({ path: "/v1/payment_intents", action: "rateLimit", times: 1 });
    const error = await stripe.paymentIntents.create(params("429-1")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(error).toMatchObject({ statusCode: 429, code: "rate_limit" });
    expect(intentsFor("429-1")).toHaveLength(0);
  });

  it("conflict answers 409 idempotency_key_in_use; retried by the SDK it succeeds", async () => {
    emulator.faults.inject({ path: "/v1/payment_intents", action: "conflict", times: 1 });
    const error = await stripe.paymentIntents.create(params("409-1"), { idempotencyKey: "k-409-1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(error).toMatchObject({ statusCode: 409, code: "idempotency_key_in_use" });
    emulator.faults.inject({ path: "/v1/payment_intents", action: "conflict", times: 1 });
    const retried = await stripeFor(emulator, { maxNetworkRetries: 1 }).paymentIntents.create(params("409-1"), { idempotencyKey: "k-409-1" });
    expect(retried.status).toBe("succeeded");
    expect(intentsFor("409-1")).toHaveLength(1);
  });

  it("matches by predicate and method, and counts hits", async () => {
    const fault = emulator.faults.inject({
      action: "rateLimit",
      when: (request) => request.params["metadata"] !== undefined && (request.params["metadata"] as Record<string, string>)["billing_period"] === "only-this",
    });
    await stripe.paymentIntents.create(params("not-this"));
    await expect(stripe.paymentIntents.create(params("only-this"))).rejects.toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    await expect(stripe.paymentIntents.create(params("only-this"))).rejects.toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(fault.hits).toBe(2);
    fault.remove();
    await stripe.paymentIntents.create(params("only-this"));
    const getOnly = emulator.faults.inject({ method: "GET", path: /^\/v1\/payment_intents\/pi_/, action: "rateLimit", times: 1 });
    const [intent] = intentsFor("only-this");
    await expect(stripe.paymentIntents.retrieve(intent?.id as string)).rejects.toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(getOnly.hits).toBe(1);
    expect((await stripe.paymentIntents.retrieve(intent?.id as string)).id).toBe(intent?.id);
  });

  it("refuses nonsense fault specs", () => {
    expect(() => emulator.faults.inject({ action: "latency", ms: -1 })).toThrow(RangeError);
    expect(() => emulator.faults.inject({ action: "rateLimit", times: 0 })).toThrow(RangeError);
  });
});
