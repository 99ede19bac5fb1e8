// Invoices, invoice items and Billing Meters on the emulator, through the real `stripe` SDK.
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

const customer = (paymentMethod = "pm_card_visa") =>
  stripe.customers.create({ email: "ada@example.com", invoice_settings: { default_payment_method: paymentMethod } });
const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe("invoices", () => {
  it("creates a draft, adds items with invoice:, finalizes and pays it: one charge for the total", async () => {
    const { id: cus } = await customer();
    const draft = await stripe.invoices.create({ customer: cus, currency: "usd", auto_advance: false, pending_invoice_items_behavior: "exclude", metadata: { k: "v" } });
    expect(draft).toMatchObject({ object: "invoice", status: "draft", customer: cus, amount_due: 0, metadata: { k: "v" } });
    const a = await stripe.invoiceItems.create({ customer: cus, invoice: draft.id, amount: 1200, currency: "usd", description: "api calls" });
    await stripe.invoices.addLines(draft.id!, { lines: [{ amount: 300, description: "storage" }] });
    expect(a).toMatchObject({ object: "invoiceitem", invoice: draft.id, amount: 1200 });
    const fetched = await stripe.invoices.retrieve(draft.id!);
    expect(fetched.lines.data.map((line) => line.amount)).toEqual([1200, 300]);
    expect(fetched.amount_due).toBe(1500);
    const open = await stripe.invoices.finalizeInvoice(draft.id!, {}, { idempotencyKey: `fin-${draft.id}` });
    expect(open).toMatchObject({ status: "open", amount_due: 1500 });
    const paid = await stripe.invoices.pay(draft.id!, { off_session: true }, { idempotencyKey: `pay-${draft.id}` });
    expect(paid).toMatchObject({ status: "paid", amount_paid: 1500, amount_remaining: 0 });
    expect(emulator.ledger.succeededChargesByCustomer().get(cus)?.map((c) => c.amount)).toEqual([1500]);
    // API 2026-10-28: the invoice's payment names the charge that paid it.
    const payments = await stripe.invoicePayments.list({ invoice: draft.id! });
    expect(payments.data.map((p) => [p.status, p.amount_paid, p.payment.type, p.payment.charge])).toEqual([["paid", 1500, "charge", emulator.ledger.charges(cus)[0]?.id]]);
    // Replayed with its key: the saved answer, no second charge.
    await stripe.invoices.pay(draft.id!, { off_session: true }, { idempotencyKey: `pay-${draft.id}` });
    expect(emulator.ledger.charges(cus)).toHaveLength(1);
  });

  it("answers 400 on finalize or pay of an invoice already finalized or paid (a new key, as after the key window)", async () => {
    const { id: cus } = await customer();
    const invoice = await stripe.invoices.create({ customer: cus, currency: "usd" });
    await stripe.invoiceItems.create({ customer: cus, invoice: invoice.id, amount: 500, currency: "usd" });
    await stripe.invoices.finalizeInvoice(invoice.id!);
    const refinalize = await failure(stripe.invoices.finalizeInvoice(invoice.id!));
    expect(refinalize).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refinalize).toMatchObject({ statusCode: 400, code: "invoice_not_editable" });
    await stripe.invoices.pay(invoice.id!);
    const repay = await failure(stripe.invoices.pay(invoice.id!));
    expect(repay).toMatchObject({ statusCode: 400, code: "invoice_already_paid" });
    expect((await stripe.invoices.retrieve(invoice.id!)).status).toBe("paid");
    const addToPaid = await failure(stripe.invoiceItems.create({ customer: cus, invoice: invoice.id, amount: 1, currency: "usd" }));
    expect(addToPaid).toMatchObject({ statusCode: 400, code: "invoice_not_editable" });
  });

  it("declines pay with a 402 card error; the invoice stays open with the attempt counted", async () => {
    const { id: cus } = await customer("pm_card_chargeDeclined");
    const invoice = await stripe.invoices.create({ customer: cus, currency: "eur" });
    await stripe.invoiceItems.create({ customer: cus, invoice: invoice.id, amount: 700, currency: "eur" });
    await stripe.invoices.finalizeInvoice(invoice.id!);
    const declined = await failure(stripe.invoices.pay(invoice.id!, { off_session: true }));
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    const open = await stripe.invoices.retrieve(invoice.id!, { expand: ["payments"] });
    expect(open).toMatchObject({ status: "open", attempt_count: 1, amount_paid: 0 });
    expect(open.payments?.data.map((payment) => [payment.status, payment.amount_paid])).toEqual([["open", null]]);
  });

  it("keeps an item without invoice: pending, lists it with pending: true, and sweeps it into the next invoice that includes pending items", async () => {
    const { id: cus } = await customer();
    const stray = await stripe.invoiceItems.create({ customer: cus, amount: 900, currency: "usd" });
    expect(stray.invoice).toBeNull();
    expect((await stripe.invoiceItems.list({ customer: cus, pending: true })).data.map((i) => i.id)).toEqual([stray.id]);
    const excluded = await stripe.invoices.create({ customer: cus, currency: "usd", pending_invoice_items_behavior: "exclude" });
    expect(excluded.amount_due).toBe(0);
    const subscriptionLike = await stripe.invoices.create({ customer: cus, currency: "usd", pending_invoice_items_behavior: "include" });
    expect(subscriptionLike.amount_due).toBe(900);
    expect((await stripe.invoiceItems.list({ customer: cus, pending: true })).data).toEqual([]);
    expect((await stripe.invoiceItems.list({ customer: cus, invoice: subscriptionLike.id })).data.map((i) => i.id)).toEqual([stray.id]);
    expect((await stripe.invoices.list({ customer: cus })).data.map((i) => i.id)).toEqual([subscriptionLike.id, excluded.id]);
  });

  it("keeps the fault injection: a create committed then dropped is replayed by its key, not created twice", async () => {
    const { id: cus } = await customer();
    const fault = emulator.faults.inject({ path: "/v1/invoices", method: "POST", times: 1, action: "commitThenDrop" });
    // stripe-node retries a reset connection once even with retries off, with the same key: Stripe's saved answer.
    const created = await stripe.invoices.create({ customer: cus, currency: "usd" }, { idempotencyKey: `inv-${cus}` });
    expect(fault.hits).toBe(1);
    expect(emulator.ledger.invoices(cus).map((i) => i.id)).toEqual([created.id]);
  });
});

describe("billing meters", () => {
  it("records meter events, refuses a duplicate identifier with Stripe's 400, and sums them in the event summaries", async () => {
    const { id: cus } = await customer();
    const meter = await stripe.billing.meters.create({
      display_name: "API calls",
      event_name: `api_calls_${cus}`,
      default_aggregation: { formula: "sum" },
      customer_mapping: { event_payload_key: "stripe_customer_id", type: "by_id" },
      value_settings: { event_payload_key: "value" },
    });
    expect(meter).toMatchObject({ object: "billing.meter", status: "active", event_name: `api_calls_${cus}` });
    const now = Math.floor(emulator.clock.now() / 1000);
    const send = (identifier: string, value: number) =>
      stripe.billing.meterEvents.create({ event_name: meter.event_name, payload: { stripe_customer_id: cus, value: String(value) }, identifier, timestamp: now - 60 });
    expect(await send(`use-1-${cus}`, 5)).toMatchObject({ object: "billing.meter_event", identifier: `use-1-${cus}` });
    await send(`use-2-${cus}`, 7);
    const duplicate = await failure(send(`use-1-${cus}`, 5));
    expect(duplicate).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect((duplicate as Error).message).toMatch(/^An event already exists with identifier use-1-/);
    const summaries = await stripe.billing.meters.listEventSummaries(meter.id, { customer: cus, start_time: now - 3_600, end_time: now + 60 });
    expect(summaries.data.map((s) => s.aggregated_value)).toEqual([12]);
  });

  it("forgets an identifier after 24 hours (a re-send then counts twice), and refuses timestamps outside 35 days past / 5 minutes ahead", async () => {
    const { id: cus } = await customer();
    const meter = await stripe.billing.meters.create({ display_name: "m", event_name: `late_${cus}`, default_aggregation: { formula: "sum" } });
    const send = (timestamp: number) =>
      stripe.billing.meterEvents.create({ event_name: meter.event_name, payload: { stripe_customer_id: cus, value: "1" }, identifier: `once-${cus}`, timestamp });
    const start = Math.floor(emulator.clock.now() / 1000);
    await send(start);
    emulator.clock.advance(24 * 3_600_000);
    const now = Math.floor(emulator.clock.now() / 1000);
    await send(now);
    const summaries = await stripe.billing.meters.listEventSummaries(meter.id, { customer: cus, start_time: start - 60, end_time: now + 60 });
    expect(summaries.data[0]?.aggregated_value).toBe(2);
    for (const timestamp of [now - 36 * 86_400, now + 6 * 60]) {
      const refused = await failure(stripe.billing.meterEvents.create({ event_name: meter.event_name, payload: { stripe_customer_id: cus, value: "1" }, timestamp }));
      expect(refused).toMatchObject({ statusCode: 400, param: "timestamp" });
    }
    const long = await failure(stripe.billing.meterEvents.create({ event_name: meter.event_name, payload: { stripe_customer_id: cus, value: "1" }, identifier: "x".repeat(101) }));
    expect(long).toMatchObject({ statusCode: 400, param: "identifier" });
  });
});
