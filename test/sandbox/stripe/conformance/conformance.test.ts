// Every route of the Stripe emulator, called through the real SDK, answers objects shaped as the pinned SDK's own
// types say (generated from Stripe's OpenAPI spec for API 2026-10-28): each property the type requires is present
// (nullable ones as null), and none the type lacks (a field that API version removed) is sent.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingMeterRoutes } from "../../../../sandbox/stripe/billing-meters.js";
import { chargeRoutes } from "../../../../sandbox/stripe/charges.js";
import { customerRoutes } from "../../../../sandbox/stripe/customers.js";
import { disputeRoutes } from "../../../../sandbox/stripe/disputes.js";
import { startStripeEmulator, type StripeEmulator } from "../../../../sandbox/stripe/index.js";
import { invoicePaymentRoutes } from "../../../../sandbox/stripe/invoice-payments.js";
import { invoiceRoutes } from "../../../../sandbox/stripe/invoices.js";
import { paymentIntentRoutes } from "../../../../sandbox/stripe/payment-intents.js";
import { refundRoutes } from "../../../../sandbox/stripe/refunds.js";
import { recordingHttpClient, type RecordedExchange } from "./recording-http-client.js";
import { sdkShape, sdkVersions, shapeProblems, type SdkShape } from "./sdk-shapes.js";

const allRoutes = [...customerRoutes, ...paymentIntentRoutes, ...chargeRoutes, ...refundRoutes, ...disputeRoutes, ...invoiceRoutes, ...invoicePaymentRoutes, ...billingMeterRoutes];

/** The SDK interface for each `object` value the emulator sends. */
const interfaces: Record<string, [file: string, name: string]> = {
  customer: ["Customers", "Customer"],
  payment_intent: ["PaymentIntents", "PaymentIntent"],
  charge: ["Charges", "Charge"],
  refund: ["Refunds", "Refund"],
  dispute: ["Disputes", "Dispute"],
  invoice: ["Invoices", "Invoice"],
  invoiceitem: ["InvoiceItems", "InvoiceItem"],
  line_item: ["InvoiceLineItems", "InvoiceLineItem"],
  invoice_payment: ["InvoicePayments", "InvoicePayment"],
  payment_method: ["PaymentMethods", "PaymentMethod"],
  "billing.meter": ["Billing/Meters", "Meter"],
  "billing.meter_event": ["Billing/MeterEvents", "MeterEvent"],
  "billing.meter_event_summary": ["Billing/MeterEventSummaries", "MeterEventSummary"],
};
const listShape: SdkShape = { required: ["object", "data", "has_more", "url"], all: ["object", "data", "has_more", "url"] };
const searchShape: SdkShape = { required: [...listShape.required, "next_page"], all: [...listShape.all, "next_page", "total_count"] };

/** Every object inside a body (expanded ones, list items, an error's PaymentIntent), checked against its shape. */
function problemsIn(value: unknown, where: string, checked: Set<string>): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => problemsIn(item, `${where}[${index}]`, checked));
  if (value === null || typeof value !== "object") return [];
  const record = value as Record<string, unknown>;
  const kind = typeof record["object"] === "string" ? (record["object"] as string) : undefined;
  const problems: string[] = [];
  if (kind !== undefined) {
    const target = interfaces[kind];
    const shape = kind === "list" ? listShape : kind === "search_result" ? searchShape : target ? sdkShape(...target) : undefined;
    if (!shape) problems.push(`${where}: object "${kind}" has no SDK type in this test's map`);
    else problems.push(...shapeProblems(record, shape).map((problem) => `${where} (${kind}): ${problem}`));
    checked.add(kind);
  }
  for (const [key, nested] of Object.entries(record)) problems.push(...problemsIn(nested, `${where}.${key}`, checked));
  return problems;
}

let emulator: StripeEmulator;
let stripe: Stripe;
const exchanges: RecordedExchange[] = [];

beforeAll(async () => {
  emulator = await startStripeEmulator();
  stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0, httpClient: recordingHttpClient(exchanges) });
  await exerciseEveryRoute(stripe);
});
afterAll(() => emulator.stop());

async function exerciseEveryRoute(client: Stripe): Promise<void> {
  const customer = await client.customers.create({ email: "ada@example.com", invoice_settings: { default_payment_method: "pm_card_visa" } });
  await client.customers.retrieve(customer.id);
  const intent = await client.paymentIntents.create({ amount: 1500, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { k: "v" } });
  await client.paymentIntents.retrieve(intent.id, { expand: ["latest_charge", "customer"] });
  await client.paymentIntents.list({ customer: customer.id, expand: ["data.latest_charge"] });
  await client.paymentIntents.search({ query: "metadata['k']:'v'" });
  const manual = await client.paymentIntents.create({ amount: 700, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", capture_method: "manual" });
  await client.paymentIntents.confirm(manual.id, { off_session: true });
  await client.paymentIntents.capture(manual.id);
  await client.paymentIntents.create({ amount: 900, currency: "usd", customer: customer.id, payment_method: "pm_card_chargeDeclined", confirm: true, off_session: true }).catch(() => undefined);
  const charge = await client.charges.create({ amount: 800, currency: "usd", source: "tok_visa", customer: customer.id });
  await client.charges.retrieve(charge.id, { expand: ["customer"] });
  await client.charges.list({ customer: customer.id });
  const refund = await client.refunds.create({ charge: charge.id, reason: "duplicate" });
  await client.refunds.retrieve(refund.id);
  await client.refunds.list({ charge: charge.id });
  await client.refunds.list({ payment_intent: intent.id });
  await exerciseDisputes(client, customer.id);
  const invoice = await client.invoices.create({ customer: customer.id, currency: "usd", pending_invoice_items_behavior: "exclude" });
  const item = await client.invoiceItems.create({ customer: customer.id, invoice: invoice.id, amount: 1200, currency: "usd" });
  await client.invoiceItems.retrieve(item.id);
  await client.invoiceItems.list({ customer: customer.id });
  await client.invoices.addLines(invoice.id!, { lines: [{ amount: 300, description: "storage" }] });
  await client.invoices.finalizeInvoice(invoice.id!);
  await client.invoices.pay(invoice.id!, { off_session: true });
  await client.invoices.retrieve(invoice.id!, { expand: ["payments"] });
  await client.invoices.list({ customer: customer.id, expand: ["data.payments"] });
  const payments = await client.invoicePayments.list({ invoice: invoice.id!, status: "paid", expand: ["data.invoice"] });
  await client.invoicePayments.retrieve(payments.data[0]?.id ?? "inpay_missing");
  const meter = await client.billing.meters.create({ display_name: "calls", event_name: "calls", default_aggregation: { formula: "sum" } });
  await client.billing.meters.retrieve(meter.id);
  await client.billing.meterEvents.create({ event_name: "calls", payload: { stripe_customer_id: customer.id, value: "3" }, identifier: "evt-1" });
  await client.billing.meters.listEventSummaries(meter.id, { customer: customer.id, start_time: 0, end_time: 4_000_000_000 });
}

/** A chargeback and an inquiry (each opens with the next request), evidence, a close, a refused and a released refund. */
async function exerciseDisputes(client: Stripe, customer: string): Promise<void> {
  const disputed = await client.paymentIntents.create({ amount: 2100, currency: "usd", customer, payment_method: "pm_card_createDispute", confirm: true, off_session: true });
  const inquired = await client.charges.create({ amount: 600, currency: "usd", source: "tok_createDisputeInquiry", customer });
  const [dispute] = (await client.disputes.list({ payment_intent: disputed.id, expand: ["data.charge"] })).data;
  await client.disputes.retrieve(dispute?.id ?? "dp_missing", { expand: ["payment_intent"] });
  await client.refunds.create({ payment_intent: disputed.id }).catch(() => undefined);
  const [inquiry] = (await client.disputes.list({ charge: inquired.id })).data;
  await client.disputes.update(inquiry?.id ?? "dp_missing", { evidence: { uncategorized_text: "winning_evidence" }, metadata: { case: "1" } });
  await client.disputes.close(dispute?.id ?? "dp_missing");
  await client.disputes.list({ limit: 3 });
  const held = await client.paymentIntents.create({ amount: 400, currency: "usd", customer, payment_method: "pm_card_visa", capture_method: "manual", confirm: true, off_session: true });
  await client.refunds.create({ payment_intent: held.id });
}

describe(`Stripe emulator against stripe ${sdkVersions().sdk} (API ${sdkVersions().api})`, () => {
  it("speaks the API version of the pinned SDK", () => {
    expect(sdkVersions().api).toMatch(/^2026-10-28/);
  });

  it("has answered 200 on every route it serves", () => {
    const unanswered = allRoutes.filter((route) => !exchanges.some((e) => e.status === 200 && e.method === route.method && route.pattern.test(e.path)));
    expect(unanswered.map((route) => `${route.method} ${route.pattern.source}`)).toEqual([]);
  });

  it("answers every object in every response with the SDK type's properties, no more, no fewer", () => {
    const checked = new Set<string>();
    const problems = exchanges.flatMap((e) => problemsIn(e.status === 200 ? e.body : (e.body as { error?: unknown }).error, `${e.method} ${e.path}`, checked));
    expect(problems).toEqual([]);
    // Each kind the emulator serves was met, including the expanded and nested ones.
    expect([...checked].sort()).toEqual([...Object.keys(interfaces), "list", "search_result"].sort());
  });
});
