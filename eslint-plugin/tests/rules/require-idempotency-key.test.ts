import { consequenceOf } from "../../src/utils/consequence.js";
import ruleWithSuggestions, { PASS_OPTIONS } from "../../src/rules/require-idempotency-key.js";
import { detectionOnly } from "../detection-only.js";
import { cjsHeader, esmHeader, ruleTester } from "../rule-tester.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const REDELIVERED = "a redelivered message";
const RETRIED = "a retry of the same request";
/** The expected report; the repeat is worded for the file: a redelivery where it handles Service Bus messages. */
const missing = (resource: string, method: string, repeat = REDELIVERED, advice = PASS_OPTIONS) => ({
  messageId: "missingKey" as const,
  data: { resource, method, repeat, consequence: consequenceOf(resource, method), advice },
});
const ONE_EVENT = "a Billing Meter event";
const STREAM = "Billing Meter events (an element of events)";
/** A meter event reported for its identifier (Stripe's dedupe for meter events), not for an idempotency key. */
const noIdentifier = (resource: string, messageId: "missingIdentifier" | "identifierOnSomePaths" = "missingIdentifier", repeat = REDELIVERED) => ({
  messageId,
  data: { resource, method: "create", repeat, events: resource.endsWith("Stream") ? STREAM : ONE_EVENT },
});

ruleTester.run("require-idempotency-key", rule, {
  valid: [
    {
      name: "every money-moving call carries a key",
      code: `${esmHeader}
async function handle(key: string) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: key });
  await stripe.paymentIntents.confirm("pi_1", {}, { idempotencyKey: \`\${key}:confirm\` });
  await stripe.paymentIntents.capture("pi_1", undefined, { idempotencyKey: \`\${key}:capture\` });
  await stripe.refunds.create({ payment_intent: "pi_1" }, { idempotencyKey: \`\${key}:refund\` });
  await stripe.invoices.pay("in_1", {}, { idempotencyKey: key });
  await stripe.payouts.create({ amount: 1, currency: "usd" }, { headers: { "Idempotency-Key": key } });
}`,
    },
    {
      name: "reads are never reported",
      code: `${esmHeader}
async function lookup(customer: string) {
  await stripe.paymentIntents.retrieve("pi_1");
  await stripe.paymentIntents.list({ customer });
  await stripe.paymentIntents.search({ query: "metadata['period']:'2026-10'" });
  await stripe.charges.retrieve("ch_1");
  await stripe.charges.list({ customer });
  await stripe.customers.create({ email: "a@example.com" });
  await stripe.paymentIntents.update("pi_1", { description: "x" });
}`,
    },
    {
      name: "options in a variable, merged by spread",
      code: `${esmHeader}
async function handle(key: string) {
  const base = { stripeAccount: "acct_1" };
  const options = { ...base, idempotencyKey: key };
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, options);
}`,
    },
    {
      name: "options that come from outside the file may carry a key",
      code: `
import type Stripe from "stripe";
export async function charge(stripe: Stripe, params: Stripe.PaymentIntentCreateParams, options: Stripe.RequestOptions) {
  return stripe.paymentIntents.create(params, options);
}
export async function confirm(stripe: Stripe, id: string, options: Stripe.RequestOptions) {
  return stripe.paymentIntents.confirm(id, { ...options });
}`,
    },
    {
      name: "confirm, capture and pay act once on an existing object: Stripe refuses a repeat, so no double charge",
      code: `${esmHeader}
async function settle(intent: string, charge: string, invoice: string) {
  await stripe.paymentIntents.confirm(intent);
  await stripe.paymentIntents.capture(intent, {});
  await stripe.charges.capture(charge);
  await stripe.invoices.pay(invoice);
}`,
    },
    {
      name: "meter events with an identifier (v1, v2, and every element of a v2 stream)",
      code: `${esmHeader}
async function meter(usage: { customer: string; period: string; units: number }[], token: string) {
  const [first] = usage;
  const identifier = \`usage:\${first.customer}:\${first.period}\`;
  await stripe.billing.meterEvents.create({ event_name: "api_calls", payload: { stripe_customer_id: first.customer, value: "1" }, identifier });
  const params = { event_name: "api_calls", payload: { stripe_customer_id: first.customer, value: "1" }, identifier };
  await stripe.v2.billing.meterEvents.create(params);
  const { meterEvents } = stripe.billing;
  await meterEvents.create({ event_name: "api_calls", payload: { value: "1" }, identifier: \`\${identifier}:b\` });
  const streams = new Stripe(token);
  await streams.v2.billing.meterEventStream.create({
    events: usage.map((u) => ({ event_name: "api_calls", payload: { stripe_customer_id: u.customer, value: String(u.units) }, identifier: \`usage:\${u.customer}:\${u.period}\` })),
  });
  await streams.v2.billing.meterEventStream.create({ events: [{ event_name: "api_calls", payload: {}, identifier }] });
}`,
    },
    {
      name: "meter event params from outside the file may carry an identifier; a session and adjustments record no usage",
      code: `${esmHeader}
export async function meter(params: Stripe.Billing.MeterEventCreateParams, events: Stripe.V2.Billing.MeterEventStreamCreateParams.Event[]) {
  await stripe.billing.meterEvents.create(params);
  await stripe.v2.billing.meterEventStream.create({ events });
  await stripe.v2.billing.meterEventSession.create();
  await stripe.billing.meterEventAdjustments.create({ event_name: "api_calls", type: "cancel", cancel: { identifier: "usage:1" } });
}`,
    },
    {
      name: "an invoice item without invoice: is swept into the next subscription invoice: with a key, not reported",
      code: `${esmHeader}
export async function addOn(key: string) {
  await stripe.invoiceItems.create({ customer: "cus_1", amount: 500, currency: "usd" }, { idempotencyKey: key });
  await stripe.invoices.finalizeInvoice("in_1");
}`,
    },
    {
      name: "a service named billing is not Stripe's billing namespace",
      code: `
class Worker {
  constructor(private readonly billing: { charges: { create(row: object): Promise<void> } }) {}
  run() { return this.billing.charges.create({ amount: 1 }); }
}
export { Worker };`,
    },
    {
      name: "not a Stripe client",
      code: `
class Ledger { refunds = { create: (_entry: object) => undefined }; }
const ledger = new Ledger();
ledger.refunds.create({ amount: 1 });
const billing = { charges: { create: (_entry: object) => undefined } };
billing.charges.create({ amount: 1 });`,
    },
    {
      name: "an ambiguous resource name on an unknown object in a file with nothing of Stripe",
      code: `
declare const db: { charges: { create(row: object): Promise<void> }; invoiceItems: { create(row: object): Promise<void> } };
export async function save() {
  await db.charges.create({ amount: 1 });
  await db.invoiceItems.create({ amount: 1 }); // an ORM's table, not Stripe's invoice items
  await db.invoices.create({ amount: 1 });
}`,
    },
  ],
  invalid: [
    {
      name: "seed failure mode 1: charges.create without a key",
      code: `${esmHeader}
async function handle(message: { body: { amountCents: number; stripeCustomerId: string } }) {
  const charge = await stripe.charges.create({
    amount: message.body.amountCents,
    currency: "usd",
    customer: message.body.stripeCustomerId,
  });
  return charge.id;
}`,
      errors: [missing("charges", "create")],
    },
    {
      name: "every money-moving method",
      code: `${esmHeader}
async function all() {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" });
  await stripe.refunds.create({ charge: "ch_1" });
  await stripe.payouts.create({ amount: 1, currency: "usd" });
  await stripe.transfers.create({ amount: 1, currency: "usd", destination: "acct_1" });
  await stripe.subscriptions.create({ customer: "cus_1", items: [] });
}`,
      errors: [
        missing("paymentIntents", "create"),
        missing("refunds", "create"),
        missing("payouts", "create"),
        missing("transfers", "create"),
        missing("subscriptions", "create"),
      ],
    },
    {
      name: "invoices: creating an invoice, an invoice item and adding lines bill again when repeated",
      code: `${esmHeader}
async function bill(customer: string) {
  const invoice = await stripe.invoices.create({ customer, auto_advance: false });
  await stripe.invoiceItems.create({ customer, invoice: invoice.id, amount: 500, currency: "usd" });
  await stripe.invoices.addLines(invoice.id, { lines: [{ amount: 500, description: "usage" }] });
  await stripe.invoices.finalizeInvoice(invoice.id);
  await stripe.invoices.pay(invoice.id);
}`,
      errors: [missing("invoices", "create"), missing("invoiceItems", "create"), missing("invoices", "addLines")],
    },
    {
      name: "a Billing Meter event without an identifier, even with an idempotency key (v1 and v2)",
      code: `${esmHeader}
async function meter(message: ServiceBusReceivedMessage, key: string) {
  await stripe.billing.meterEvents.create({ event_name: "api_calls", payload: { stripe_customer_id: message.body.customer, value: "1" } });
  await stripe.billing.meterEvents.create({ event_name: "api_calls", payload: { value: "1" } }, { idempotencyKey: key });
  const params = { event_name: "api_calls", payload: { value: "1" }, timestamp: "2026-11-30T00:00:00Z" };
  await stripe.v2.billing.meterEvents.create(params);
}`,
      errors: [noIdentifier("billing.meterEvents"), noIdentifier("billing.meterEvents"), noIdentifier("v2.billing.meterEvents")],
    },
    {
      name: "a meter event stream with an element lacking its identifier, and an identifier on some paths only",
      code: `
import Stripe from "stripe";
export async function stream(token: string, usage: { customer: string; id?: string }[]) {
  const client = new Stripe(token);
  await client.v2.billing.meterEventStream.create({ events: usage.map((u) => ({ event_name: "api_calls", payload: { stripe_customer_id: u.customer, value: "1" } })) });
  await client.v2.billing.meterEventStream.create({
    events: [
      { event_name: "api_calls", payload: { value: "1" }, identifier: "usage:1" },
      { event_name: "api_calls", payload: { value: "1" } },
    ],
  });
  const base = { event_name: "api_calls", payload: { value: "1" } };
  await client.billing.meterEvents.create(usage[0]?.id ? { ...base, identifier: usage[0].id } : base);
}`,
      errors: [
        noIdentifier("v2.billing.meterEventStream", "missingIdentifier", RETRIED),
        noIdentifier("v2.billing.meterEventStream", "identifierOnSomePaths", RETRIED),
        noIdentifier("billing.meterEvents", "identifierOnSomePaths", RETRIED),
      ],
    },
    {
      name: "options without a key, in a variable",
      code: `${esmHeader}
const options = { stripeAccount: "acct_1", timeout: 10_000 };
export async function charge() {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, options);
}`,
      errors: [missing("paymentIntents", "create")],
    },
    {
      name: "a client from a same-file factory, and a resource held in a variable",
      code: `
import Stripe from "stripe";
function makeStripe() { return new Stripe(process.env.STRIPE_SECRET_KEY!, { maxNetworkRetries: 2 }); }
const client = makeStripe();
const intents = client.paymentIntents;
export const charge = () => intents.create({ amount: 1, currency: "usd" });`,
      errors: [missing("paymentIntents", "create", RETRIED)],
    },
    {
      name: "a class-based consumer with the client injected and typed Stripe",
      code: `
import type Stripe from "stripe";
export class Biller {
  constructor(private readonly payments: Stripe) {}
  charge(amount: number) { return this.payments.charges.create({ amount, currency: "usd" }); }
}`,
      errors: [missing("charges", "create", RETRIED)],
    },
    {
      name: "a client parameter named stripe",
      code: `
export async function refund(deps: { stripe: any }, charge: string) {
  await deps.stripe.refunds.create({ charge });
}`,
      errors: [missing("refunds", "create", RETRIED)],
    },
    {
      name: "CommonJS (.cjs)",
      filename: "consumer.cjs",
      code: `${cjsHeader}
async function handle(message) {
  await stripe.paymentIntents.create({ amount: message.body.amount, currency: "usd", confirm: true });
  await receiver.completeMessage(message);
}
module.exports = { handle };`,
      languageOptions: { parserOptions: { sourceType: "script" } },
      errors: [missing("paymentIntents", "create")],
    },
    {
      name: "a .tsx server action",
      filename: "checkout.tsx",
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function Pay({ amount }: { amount: number }) {
  await stripe.paymentIntents.create({ amount, currency: "usd", confirm: true });
  return <p>paid {amount}</p>;
}`,
      errors: [missing("paymentIntents", "create", RETRIED)],
    },
    {
      name: "the client from require('stripe')(key)",
      filename: "consumer.cjs",
      code: `
const stripe = require("stripe")(process.env.STRIPE_SECRET_KEY);
exports.charge = (amount) => stripe.charges.create({ amount, currency: "usd" });`,
      languageOptions: { parserOptions: { sourceType: "script" } },
      errors: [missing("charges", "create", RETRIED)],
    },
  ],
});
