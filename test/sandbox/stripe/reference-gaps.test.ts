// The gaps between the Stripe emulator and Stripe's published API reference (API 2026-10-28), each checked through
// the real `stripe` SDK the way the reference describes the answer.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { stripeFor } from "./client.js";
import { sdkShape, shapeProblems } from "./conformance/sdk-shapes.js";

let emulator: StripeEmulator;
let stripe: Stripe;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  stripe = stripeFor(emulator);
});
afterAll(() => emulator.stop());

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);
const payment = (customer: string, paymentMethod = "pm_card_visa") =>
  stripe.paymentIntents.create({ amount: 1234, currency: "usd", customer, payment_method: paymentMethod, confirm: true, off_session: true });

describe("missing objects", () => {
  it("answers an unknown invoice item or billing meter in the URL with 404 resource_missing", async () => {
    for (const call of [stripe.invoiceItems.retrieve("ii_missing"), stripe.billing.meters.retrieve("mtr_missing")]) {
      const error = await failure(call);
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(error).toMatchObject({ statusCode: 404, code: "resource_missing", param: "id" });
    }
  });

  it("answers a create whose parameter names a missing object with 400 resource_missing naming the parameter", async () => {
    const byCustomer = await failure(stripe.paymentIntents.create({ amount: 100, currency: "usd", customer: "cus_missing" }));
    expect(byCustomer).toMatchObject({ statusCode: 400, code: "resource_missing", param: "customer" });
    const invoice = await failure(stripe.invoices.create({ customer: "cus_missing" }));
    expect(invoice).toMatchObject({ statusCode: 400, code: "resource_missing", param: "customer" });
    const refundOfCharge = await failure(stripe.refunds.create({ charge: "ch_missing" }));
    expect(refundOfCharge).toMatchObject({ statusCode: 400, code: "resource_missing", param: "charge" });
    const refundOfIntent = await failure(stripe.refunds.create({ payment_intent: "pi_missing" }));
    expect(refundOfIntent).toMatchObject({ statusCode: 400, code: "resource_missing", param: "payment_intent" });
  });
});

describe("charges and PaymentIntents carry what Stripe sends", () => {
  it("gives a charge payment_method_details, billing_details, receipt_url and disputed", async () => {
    const { id: customer } = await stripe.customers.create({});
    const intent = await payment(customer, "pm_card_mastercard");
    const charge = await stripe.charges.retrieve(intent.latest_charge as string);
    expect(charge.payment_method_details).toMatchObject({ type: "card", card: { brand: "mastercard", last4: "4444", amount_authorized: 1234 } });
    expect(charge.billing_details).toEqual({ address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null }, email: null, name: null, phone: null, tax_id: null });
    expect(charge.receipt_url).toMatch(/^https:\/\/pay\.stripe\.com\/receipts\//);
    expect(charge.disputed).toBe(false);
  });

  it("sends a PaymentIntent's nullable fields as null, not absent", async () => {
    const { id: customer } = await stripe.customers.create({});
    const intent = await payment(customer);
    for (const field of ["processing", "setup_future_usage", "review", "application", "on_behalf_of", "transfer_group", "shipping"] as const) {
      expect(intent, field).toHaveProperty(field, null);
    }
  });

  it("puts a whole PaymentMethod, not a stub, in a 402's last_payment_error", async () => {
    const { id: customer } = await stripe.customers.create({});
    const declined = (await failure(payment(customer, "pm_card_chargeDeclined"))) as Stripe.errors.StripeCardError;
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    const method = declined.payment_intent?.last_payment_error?.payment_method as unknown as Record<string, unknown>;
    expect(shapeProblems(method, sdkShape("PaymentMethods", "PaymentMethod"))).toEqual([]);
    expect(method).toMatchObject({ id: "pm_card_chargeDeclined", type: "card", customer, card: { brand: "visa", last4: "0002" } });
  });
});

describe("refunds of uncaptured charges and the charge's outcome", () => {
  it("refunding an uncaptured charge releases the authorization: the refund succeeds and the charge shows refunded", async () => {
    const { id: customer } = await stripe.customers.create({});
    const held = await stripe.paymentIntents.create({ amount: 1800, currency: "usd", customer, payment_method: "pm_card_visa", capture_method: "manual", confirm: true, off_session: true });
    expect(held.status).toBe("requires_capture");
    const refund = await stripe.refunds.create({ charge: held.latest_charge as string });
    expect(refund).toMatchObject({ status: "succeeded", amount: 1800, payment_intent: held.id });
    const charge = await stripe.charges.retrieve(held.latest_charge as string);
    expect(charge).toMatchObject({ captured: false, amount_captured: 0, amount_refunded: 1800, refunded: true });
    const intent = await stripe.paymentIntents.retrieve(held.id);
    expect(intent).toMatchObject({ status: "canceled", amount_capturable: 0 });
    expect(await failure(stripe.paymentIntents.capture(held.id))).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
    expect(await failure(stripe.refunds.create({ charge: held.latest_charge as string }))).toMatchObject({ statusCode: 400, code: "charge_already_refunded" });
  });

  it("an uncaptured legacy charge is released in full; a partial amount is refused", async () => {
    const { id: customer } = await stripe.customers.create({});
    const charge = await stripe.charges.create({ amount: 700, currency: "usd", source: "tok_visa", customer, capture: false });
    expect(await failure(stripe.refunds.create({ charge: charge.id, amount: 300 }))).toMatchObject({ statusCode: 400, param: "amount" });
    await stripe.refunds.create({ charge: charge.id });
    expect(await stripe.charges.retrieve(charge.id)).toMatchObject({ refunded: true, amount_refunded: 700 });
  });

  it("gives a charge's outcome advice_code, network_advice_code and network_decline_code (null when the bank gave none)", async () => {
    const { id: customer } = await stripe.customers.create({});
    const paid = await payment(customer);
    const declined = (await failure(payment(customer, "pm_card_chargeDeclined"))) as Stripe.errors.StripeCardError;
    for (const id of [paid.latest_charge as string, declined.charge ?? ""]) {
      const { outcome } = await stripe.charges.retrieve(id);
      expect(outcome).toMatchObject({ advice_code: null, network_advice_code: null, network_decline_code: null });
      expect(Object.keys(outcome ?? {}).sort()).toEqual(["advice_code", "network_advice_code", "network_decline_code", "network_status", "reason", "seller_message", "type"]);
    }
  });
});
