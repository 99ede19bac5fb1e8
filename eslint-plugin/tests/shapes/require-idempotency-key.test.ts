// Stripe clients known by their type, whatever their name or origin; options spread or built conditionally;
// capture and confirm; messages worded for the file (a redelivered message only where there is one).
import { consequenceOf } from "../../src/utils/consequence.js";
import ruleWithSuggestions, { PASS_OPTIONS } from "../../src/rules/require-idempotency-key.js";
import { detectionOnly } from "../detection-only.js";
import { inBothModes } from "./both-modes.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const REDELIVERED = "a redelivered message";
const RETRIED = "a retry of the same request";
const missing = (resource: string, method: string, repeat = RETRIED, advice = PASS_OPTIONS) => ({
  messageId: "missingKey" as const,
  data: { resource, method, repeat, consequence: consequenceOf(resource, method), advice },
});
const noIdentifier = (resource: string) => ({
  messageId: "missingIdentifier" as const,
  data: { resource, method: "create", repeat: RETRIED, events: "a Billing Meter event" },
});
const somePaths = (resource: string, method: string, repeat = RETRIED) => ({
  messageId: "keyOnSomePaths" as const,
  data: { resource, method, repeat, consequence: consequenceOf(resource, method) },
});

inBothModes("require-idempotency-key: real shapes", rule, {
  valid: [
    {
      name: "a ledger of our own with Stripe-like names, injected by its interface",
      code: `
import Stripe from "stripe";
interface Ledger { charges: { create(row: { amount: number }): Promise<void> } }
export const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export class Recorder {
  constructor(private readonly ledger: Ledger) {}
  record(amount: number) { return this.ledger.charges.create({ amount }); }
}`,
    },
    {
      name: "options forwarded whole (...args, a spread of a parameter) may carry a key",
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export function create(...args: Parameters<Stripe["paymentIntents"]["create"]>) {
  return stripe.paymentIntents.create(...args);
}
export function refund(params: Stripe.RefundCreateParams, options: Stripe.RequestOptions) {
  return stripe.refunds.create(params, { ...options, timeout: 10_000 });
}`,
    },
    {
      name: "a let whose key is set by assignment may carry it",
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function pay(amount: number, key: string) {
  let options: Stripe.RequestOptions = {};
  options.idempotencyKey = key;
  return stripe.paymentIntents.create({ amount, currency: "usd" }, options);
}`,
    },
    {
      name: "a key on both branches of a conditional",
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export function charge(amount: number, key: string, retry: boolean) {
  return stripe.charges.create({ amount, currency: "usd" }, retry ? { idempotencyKey: key + ":retry" } : { idempotencyKey: key });
}`,
    },
    {
      name: "options from a callback of a wrapper the file does not show",
      code: `
import Stripe from "stripe";
import { withRetries } from "./retries.js";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export const payout = (amount: number) => withRetries((options: Stripe.RequestOptions) => stripe.payouts.create({ amount, currency: "usd" }, options));`,
    },
  ],
  invalid: [
    {
      name: "a meter event on an injected client known by its type, without an identifier (v1 and v2)",
      code: `
import type Stripe from "stripe";
export class UsageRecorder {
  constructor(private readonly payments: Stripe) {}
  async record(customer: string, units: number) {
    await this.payments.billing.meterEvents.create({ event_name: "api_calls", payload: { stripe_customer_id: customer, value: String(units) } });
    await this.payments.v2.billing.meterEvents.create({ event_name: "api_calls", payload: { stripe_customer_id: customer, value: String(units) } });
  }
}`,
      errors: [noIdentifier("billing.meterEvents"), noIdentifier("v2.billing.meterEvents")],
    },
    {
      name: "a parameter typed import('stripe').default",
      code: `
export async function refund(client: import("stripe").default, charge: string) {
  await client.refunds.create({ charge });
}`,
      errors: [missing("refunds", "create")],
    },
    {
      name: "an interface derived from Stripe's type, injected into a class",
      code: `
import type Stripe from "stripe";
interface Payments extends Pick<Stripe, "refunds" | "charges"> {}
export class Refunder {
  constructor(private readonly payments: Payments) {}
  refund(charge: string) { return this.payments.charges.create({ amount: 1, currency: "usd", source: charge }); }
}`,
      errors: [missing("charges", "create")],
    },
    {
      name: "a type alias and a resource-typed member",
      code: `
import type Stripe from "stripe";
type BillingClient = Stripe;
interface Deps { api: { transfers: Stripe.TransfersResource } }
export class Payouts {
  private client!: BillingClient;
  send(deps: Deps) {
    void this.client.transfers.create({ amount: 1, currency: "usd", destination: "acct_1" });
    return deps.api.transfers.create({ amount: 1, currency: "usd", destination: "acct_1" });
  }
}`,
      errors: [missing("transfers", "create"), missing("transfers", "create")],
    },
    {
      name: "a subclass of Stripe",
      code: `
import Stripe from "stripe";
class BillingStripe extends Stripe {
  constructor() { super(process.env.STRIPE_SECRET_KEY!, { maxNetworkRetries: 1 }); }
}
const payments = new BillingStripe();
export const charge = (amount: number) => payments.charges.create({ amount, currency: "usd" });`,
      errors: [missing("charges", "create")],
    },
    {
      name: "resources destructured from the client",
      code: `
import Stripe from "stripe";
const client = new Stripe(process.env.STRIPE_SECRET_KEY!);
const { paymentIntents } = client;
const { refunds: refundsApi } = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function bill(amount: number) {
  await paymentIntents.create({ amount, currency: "usd", confirm: true });
  await refundsApi.create({ payment_intent: "pi_1" });
}`,
      errors: [missing("paymentIntents", "create"), missing("refunds", "create")],
    },
    {
      name: "an awaited factory result",
      code: `
import Stripe from "stripe";
async function stripeClient(): Promise<Stripe> { return new Stripe(process.env.STRIPE_SECRET_KEY!); }
export async function payout(amount: number) {
  const api = await stripeClient();
  await api.payouts.create({ amount, currency: "usd" });
}`,
      errors: [missing("payouts", "create")],
    },
    {
      name: "a factory from another module, used like a Stripe client (no types needed)",
      code: `
import { getStripe } from "./clients.js";
export async function transfer(amount: number, destination: string) {
  const api = await getStripe();
  await api.transfers.create({ amount, currency: "usd", destination });
}`,
      errors: [missing("transfers", "create")],
    },
    {
      name: "a key on one branch only",
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function charge(amount: number, key: string | undefined) {
  await stripe.charges.create({ amount, currency: "usd" }, key ? { idempotencyKey: key } : undefined);
  await stripe.refunds.create({ charge: "ch_1" }, { timeout: 5_000, ...(key ? { idempotencyKey: key } : {}) });
}`,
      errors: [somePaths("charges", "create"), somePaths("refunds", "create")],
    },
    {
      name: "params given in branches to a let, then mutated (every value the file shows lacks a key)",
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function pay(kind: string, amount: number) {
  let params: Stripe.PaymentIntentCreateParams = { amount, currency: "usd" };
  if (kind === "card") params = { amount, currency: "usd", payment_method_types: ["card"], confirm: true };
  params.description = kind;
  return stripe.paymentIntents.create(params);
}`,
      errors: [missing("paymentIntents", "create")],
    },
    {
      name: "worded for a Service Bus consumer where the file handles messages",
      code: `
import Stripe from "stripe";
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: message.body.amount, currency: "usd", confirm: true });
}`,
      errors: [missing("paymentIntents", "create", REDELIVERED)],
    },
  ],
});
