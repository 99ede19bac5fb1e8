import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { stripeFor } from "./client.js";

let emulator: StripeEmulator;
let stripe: Stripe;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  stripe = stripeFor(emulator);
});
afterAll(() => emulator.stop());

async function customer() {
  return stripe.customers.create({ email: "ada@example.com", metadata: { tenant: "t1" } });
}

describe("customers", () => {
  it("creates and retrieves a customer", async () => {
    const created = await customer();
    expect(created.id).toMatch(/^cus_/);
    const fetched = await stripe.customers.retrieve(created.id);
    expect(fetched).toMatchObject({ id: created.id, object: "customer", email: "ada@example.com", metadata: { tenant: "t1" } });
  });

  it("answers an unknown customer with 404 resource_missing", async () => {
    const error = await stripe.customers.retrieve("cus_missing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });
});

describe("payment intents", () => {
  it("confirms off-session with pm_card_visa: succeeded, one succeeded charge", async () => {
    const { id: customerId } = await customer();
    const intent = await stripe.paymentIntents.create({
      amount: 1999,
      currency: "usd",
      customer: customerId,
      payment_method: "pm_card_visa",
      confirm: true,
      off_session: true,
      metadata: { billing_period: "2026-10", customer_ref: "c-1" },
    });
    expect(intent).toMatchObject({ object: "payment_intent", status: "succeeded", amount: 1999, amount_received: 1999, currency: "usd", customer: customerId });
    expect(intent.metadata).toEqual({ billing_period: "2026-10", customer_ref: "c-1" });
    expect(intent.latest_charge).toMatch(/^ch_/);
    expect(intent.lastResponse.statusCode).toBe(200);
    const charge = await stripe.charges.retrieve(intent.latest_charge as string);
    expect(charge).toMatchObject({ status: "succeeded", captured: true, paid: true, amount: 1999, payment_intent: intent.id });
    expect(emulator.ledger.succeededChargesByCustomer().get(customerId)?.map((c) => c.id)).toEqual([charge.id]);
  });

  it("declines pm_card_chargeDeclined with a 402 StripeCardError carrying the PaymentIntent", async () => {
    const { id: customerId } = await customer();
    const error = await stripe.paymentIntents
      .create({ amount: 500, currency: "usd", customer: customerId, payment_method: "pm_card_chargeDeclined", confirm: true, off_session: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    const cardError = error as Stripe.errors.StripeCardError;
    expect(cardError).toMatchObject({ statusCode: 402, code: "card_declined", decline_code: "generic_decline", type: "StripeCardError" });
    expect(cardError.payment_intent?.status).toBe("requires_payment_method");
    expect(cardError.payment_intent?.last_payment_error?.code).toBe("card_declined");
    const stored = await stripe.paymentIntents.retrieve(cardError.payment_intent?.id as string);
    expect(stored.status).toBe("requires_payment_method");
    expect(emulator.ledger.charges(customerId).map((c) => c.status)).toEqual(["failed"]);
    expect(emulator.ledger.succeededChargesByCustomer().has(customerId)).toBe(false);
  });

  it("pm_card_authenticationRequired: requires_action on session, a 402 authentication_required off session", async () => {
    const { id: customerId } = await customer();
    const onSession = await stripe.paymentIntents.create({ amount: 700, currency: "eur", customer: customerId, payment_method: "pm_card_authenticationRequired", confirm: true });
    expect(onSession.status).toBe("requires_action");
    expect(onSession.next_action?.type).toBe("use_stripe_sdk");
    const offSession = await stripe.paymentIntents
      .create({ amount: 700, currency: "eur", customer: customerId, payment_method: "pm_card_authenticationRequired", confirm: true, off_session: true })
      .catch((e: unknown) => e);
    expect(offSession).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(offSession).toMatchObject({ code: "authentication_required" });
  });

  it("creates unconfirmed, then confirms, then captures a manual-capture intent", async () => {
    const { id: customerId } = await customer();
    const draft = await stripe.paymentIntents.create({ amount: 1200, currency: "usd", customer: customerId, capture_method: "manual" });
    expect(draft.status).toBe("requires_payment_method");
    const confirmed = await stripe.paymentIntents.confirm(draft.id, { payment_method: "pm_card_visa" });
    expect(confirmed).toMatchObject({ status: "requires_capture", amount_capturable: 1200, amount_received: 0 });
    const captured = await stripe.paymentIntents.capture(draft.id, { amount_to_capture: 1000 });
    expect(captured).toMatchObject({ status: "succeeded", amount_received: 1000, amount_capturable: 0 });
    const again = await stripe.paymentIntents.capture(draft.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(again).toMatchObject({ code: "payment_intent_unexpected_state" });
  });

  it("refunds a PaymentIntent's charge, refusing a second full refund", async () => {
    const { id: customerId } = await customer();
    const intent = await stripe.paymentIntents.create({ amount: 800, currency: "usd", customer: customerId, payment_method: "pm_card_visa", confirm: true });
    const refund = await stripe.refunds.create({ payment_intent: intent.id, reason: "duplicate" });
    expect(refund).toMatchObject({ object: "refund", amount: 800, charge: intent.latest_charge, status: "succeeded", reason: "duplicate" });
    const charge = await stripe.charges.retrieve(intent.latest_charge as string);
    expect(charge).toMatchObject({ amount_refunded: 800, refunded: true });
    const twice = await stripe.refunds.create({ charge: charge.id }).catch((e: unknown) => e);
    expect(twice).toMatchObject({ statusCode: 400, code: "charge_already_refunded" });
    expect(emulator.ledger.refunds().filter((r) => r.charge === charge.id).map((r) => r.id)).toEqual([refund.id]);
  });

  it("lists by customer and created, newest first, with cursor pagination", async () => {
    const { id: customerId } = await customer();
    const { id: otherCustomer } = await customer();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await stripe.paymentIntents.create({ amount: 100 + i, currency: "usd", customer: customerId })).id);
    }
    await stripe.paymentIntents.create({ amount: 100, currency: "usd", customer: otherCustomer });
    const first = await stripe.paymentIntents.list({ customer: customerId, limit: 2 });
    expect(first).toMatchObject({ object: "list", has_more: true, url: "/v1/payment_intents" });
    expect(first.data.map((pi) => pi.id)).toEqual([ids[4], ids[3]]);
    const next = await stripe.paymentIntents.list({ customer: customerId, limit: 2, starting_after: ids[3] });
    expect(next.data.map((pi) => pi.id)).toEqual([ids[2], ids[1]]);
    const back = await stripe.paymentIntents.list({ customer: customerId, limit: 2, ending_before: ids[1] });
    expect(back.data.map((pi) => pi.id)).toEqual([ids[3], ids[2]]);
    const all: string[] = [];
    for await (const pi of stripe.paymentIntents.list({ customer: customerId, limit: 2 })) all.push(pi.id);
    expect(all).toEqual([...ids].reverse());
    const now = Math.floor(emulator.clock.now() / 1000);
    expect((await stripe.paymentIntents.list({ customer: customerId, created: { gte: now - 60 } })).data).toHaveLength(5);
    expect((await stripe.paymentIntents.list({ customer: customerId, created: { gt: now + 60 } })).data).toHaveLength(0);
  });

  it("searches by metadata and customer", async () => {
    const { id: customerId } = await customer();
    const period = `2031-${String(Math.floor(Math.random() * 12) + 1).padStart(2, "0")}-search`;
    const wanted = await stripe.paymentIntents.create({ amount: 300, currency: "usd", customer: customerId, metadata: { billing_period: period } });
    await stripe.paymentIntents.create({ amount: 300, currency: "usd", customer: customerId, metadata: { billing_period: "other" } });
    const byMetadata = await stripe.paymentIntents.search({ query: `metadata['billing_period']:'${period}'` });
    expect(byMetadata).toMatchObject({ object: "search_result", has_more: false, next_page: null });
    expect(byMetadata.data.map((pi) => pi.id)).toEqual([wanted.id]);
    const both = await stripe.paymentIntents.search({ query: `customer:'${customerId}' AND metadata["billing_period"]:"${period}" AND amount>=300` });
    expect(both.data.map((pi) => pi.id)).toEqual([wanted.id]);
    const byCustomer = await stripe.paymentIntents.search({ query: `customer:'${customerId}'`, limit: 1 });
    expect(byCustomer.has_more).toBe(true);
    const page2 = await stripe.paymentIntents.search({ query: `customer:'${customerId}'`, limit: 1, page: byCustomer.next_page as string });
    expect([...byCustomer.data, ...page2.data].map((pi) => pi.id).sort()).toHaveLength(2);
    expect(page2.data[0]?.id).toBe(wanted.id);
    const bad = await stripe.paymentIntents.search({ query: "metadata.billing_period = 1" }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(bad).toMatchObject({ param: "query" });
  });

  it("expands ids into objects on request, and refuses a path it cannot expand before creating anything", async () => {
    const { id: customerId } = await customer();
    const intent = await stripe.paymentIntents.create(
      { amount: 650, currency: "usd", customer: customerId, payment_method: "pm_card_visa", confirm: true },
      { idempotencyKey: "expand-1" },
    );
    const expanded = await stripe.paymentIntents.retrieve(intent.id, { expand: ["latest_charge", "latest_charge.customer"] });
    const charge = expanded.latest_charge as Stripe.Charge;
    expect(charge).toMatchObject({ object: "charge", id: intent.latest_charge, amount: 650 });
    expect((charge.customer as Stripe.Customer).id).toBe(customerId);
    const listed = await stripe.paymentIntents.list({ customer: customerId, expand: ["data.customer"] });
    expect((listed.data[0]?.customer as Stripe.Customer).object).toBe("customer");
    expect((await stripe.paymentIntents.retrieve(intent.id)).latest_charge).toBe(intent.latest_charge);
    const before = emulator.ledger.paymentIntents(customerId).length;
    const bad = await stripe.paymentIntents.create({ amount: 650, currency: "usd", customer: customerId, expand: ["latest_charge.nope"] }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ statusCode: 400, param: "expand" });
    expect(emulator.ledger.paymentIntents(customerId)).toHaveLength(before);
  });

  it("rejects unknown and malformed parameters with Stripe's 400 codes", async () => {
    const unknown = await stripe.paymentIntents.create({ amount: 100, currency: "usd", amountt: 3 } as never).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ statusCode: 400, code: "parameter_unknown", param: "amountt" });
    const missing = await stripe.paymentIntents.create({ currency: "usd" } as never).catch((e: unknown) => e);
    expect(missing).toMatchObject({ statusCode: 400, code: "parameter_missing", param: "amount" });
    const badPm = await stripe.paymentIntents.create({ amount: 100, currency: "usd", payment_method: "pm_card_nope", confirm: true }).catch((e: unknown) => e);
    expect(badPm).toMatchObject({ statusCode: 400, code: "resource_missing", param: "payment_method" });
  });
});

describe("search lag", () => {
  it("hides PaymentIntents from search until searchLagMs passed on the clock, while list sees them at once", async () => {
    const lagging = await startStripeEmulator({ searchLagMs: 60_000 });
    try {
      const client = stripeFor(lagging);
      const intent = await client.paymentIntents.create({ amount: 100, currency: "usd", metadata: { billing_period: "2026-11" } });
      const query = "metadata['billing_period']:'2026-11'";
      expect((await client.paymentIntents.search({ query })).data).toHaveLength(0);
      expect((await client.paymentIntents.list({ limit: 1 })).data.map((pi) => pi.id)).toEqual([intent.id]);
      lagging.clock.advance(61_000);
      expect((await client.paymentIntents.search({ query })).data.map((pi) => pi.id)).toEqual([intent.id]);
    } finally {
      await lagging.stop();
    }
  });
});

describe("charges (legacy API)", () => {
  it("charges a customer's default source, declines tok_chargeDeclined, lists by customer", async () => {
    const { id: customerId } = await stripe.customers.create({ source: "tok_visa" });
    const charge = await stripe.charges.create({ amount: 2500, currency: "usd", customer: customerId, description: "Usage billing for 2026-10" });
    expect(charge).toMatchObject({ object: "charge", status: "succeeded", paid: true, captured: true, customer: customerId, payment_intent: null });
    const declined = await stripe.charges.create({ amount: 2500, currency: "usd", source: "tok_chargeDeclined" }).catch((e: unknown) => e);
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect((declined as Stripe.errors.StripeCardError).charge).toMatch(/^ch_/);
    const bare = await stripe.customers.create({});
    const noCard = await stripe.charges.create({ amount: 100, currency: "usd", customer: bare.id }).catch((e: unknown) => e);
    expect(noCard).toMatchObject({ statusCode: 400, code: "missing" });
    const list = await stripe.charges.list({ customer: customerId });
    expect(list.data.map((c) => c.id)).toEqual([charge.id]);
  });
});

describe("authentication and routing", () => {
  it("answers a non-test key with 401 StripeAuthenticationError without echoing the key", async () => {
    const live = new Stripe("sk_live_notreal0000", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
    const error = await live.customers.create({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect((error as Error).message).not.toContain("notreal0000");
  });

  it("answers a request without a key with 401 in Stripe's error shape", async () => {
    const response = await fetch(`${emulator.apiBase}/v1/customers`, { method: "POST" });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { type: string; message: string } }).error).toMatchObject({
      type: "invalid_request_error",
      message: expect.stringContaining("did not provide an API key"),
    });
  });

  it("answers a malformed form body with 400 naming the parameter", async () => {
    const response = await fetch(`${emulator.apiBase}/v1/customers`, {
      method: "POST",
      headers: { Authorization: "Bearer sk_test_sandbox", "Content-Type": "application/x-www-form-urlencoded" },
      body: "metadata=flat&metadata[k]=nested",
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe("metadata[k]");
  });

  it("answers an unknown path with 404", async () => {
    const response = await fetch(`${emulator.apiBase}/v1/nothing`, { headers: { Authorization: "Bearer sk_test_sandbox" } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });
});
