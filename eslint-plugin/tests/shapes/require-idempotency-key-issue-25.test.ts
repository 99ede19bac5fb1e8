// The shapes real billing code writes that the rule used to miss (issue 25): clients made in another module of the
// project (a subclass of Stripe, an instance of it, a wrapper injected into a service), a create with no options
// argument, and options whose key is added on some paths only. Each case is the shape of a labelled corpus file
// (eslint-plugin/corpus/). The fixture modules are beside the RuleTester's file, so both modes read the same project.
import path from "node:path";
import { consequenceOf } from "../../src/utils/consequence.js";
import ruleWithSuggestions, { PASS_OPTIONS } from "../../src/rules/require-idempotency-key.js";
import { detectionOnly } from "../detection-only.js";
import { fixturesDir, ruleTester, typedRuleTester } from "../rule-tester.js";
import { inBothModes } from "./both-modes.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const filename = path.join(fixturesDir, "file.ts");
const RETRIED = "a retry of the same request";
const missing = (resource: string, method = "create", advice = PASS_OPTIONS) => ({
  messageId: "missingKey" as const,
  data: { resource, method, repeat: RETRIED, consequence: consequenceOf(resource, method), advice },
});
const somePaths = (resource: string, method = "create") => ({
  messageId: "keyOnSomePaths" as const,
  data: { resource, method, repeat: RETRIED, consequence: consequenceOf(resource, method) },
});

inBothModes("require-idempotency-key: issue 25 shapes", rule, {
  valid: [
    {
      name: "a ledger of the project's own, imported from a module that does not use Stripe",
      filename,
      code: `
import { ledger } from "./ledger.js";
export const record = (amount: number) => ledger.charges.create({ amount });`,
    },
    {
      name: "an imported client with a key",
      filename,
      code: `
import { payments } from "./billing-client.js";
export const bill = (amount: number, key: string) => payments.charges.create({ amount, currency: "usd" }, { idempotencyKey: key });`,
    },
    {
      name: "options spread from the caller's array (not knowable)",
      filename,
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export function create(args: [Stripe.ChargeCreateParams, Stripe.RequestOptions]) { return stripe.charges.create(...args); }`,
    },
    {
      name: "a key pushed on every path, and assigned on both branches of an if",
      filename,
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function pay(amount: number, key: string, retry: boolean) {
  const args: [Stripe.PaymentIntentCreateParams, Stripe.RequestOptions?] = [{ amount, currency: "usd" }];
  args.push({ idempotencyKey: key });
  await stripe.paymentIntents.create(...args);
  const options: Stripe.RequestOptions = {};
  if (retry) options.idempotencyKey = key + ":retry";
  else options.idempotencyKey = key;
  await stripe.refunds.create({ payment_intent: "pi_1" }, options);
  if (!key) throw new Error("no key");
  const checked: Stripe.RequestOptions = {};
  checked.idempotencyKey = key;
  await stripe.transfers.create({ amount, currency: "usd", destination: "acct_1" }, checked);
}`,
    },
    {
      name: "request options alone where the params are optional (by their type, or their name without types)",
      filename,
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export const draft = (options: Stripe.RequestOptions) => stripe.invoices.create(options);`,
    },
    {
      name: "options filled by Object.assign, or handed to a helper that may set the key",
      filename,
      code: `
import Stripe from "stripe";
import { withKey } from "./keys.js";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function pay(amount: number, key: string) {
  const options: Stripe.RequestOptions = {};
  Object.assign(options, { idempotencyKey: key });
  await stripe.charges.create({ amount, currency: "usd" }, options);
  const viaHelper: Stripe.RequestOptions = {};
  withKey(viaHelper, key);
  await stripe.refunds.create({ charge: "ch_1" }, viaHelper);
}`,
    },
  ],
  invalid: [
    {
      name: "options filled by Object.assign under an if; options only logged",
      filename,
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function pay(amount: number, key?: string) {
  const options: Stripe.RequestOptions = {};
  if (key) Object.assign(options, { idempotencyKey: key });
  await stripe.charges.create({ amount, currency: "usd" }, options);
  const logged: Stripe.RequestOptions = { timeout: 5_000 };
  console.log("refund options", logged);
  await stripe.refunds.create({ charge: "ch_1" }, logged);
}`,
      errors: [somePaths("charges"), missing("refunds")],
    },
    {
      name: "a subclass of Stripe exported from the project's configuration module",
      filename,
      code: `
import { payments } from "./billing-client.js";
export const bill = (amount: number) => payments.charges.create({ amount, currency: "usd" });`,
      errors: [missing("charges")],
    },
    {
      name: "the subclass constructed here, and injected by its type",
      filename,
      code: `
import { PaymentsClient } from "./billing-client.js";
const client = new PaymentsClient();
export class Refunds {
  constructor(private readonly api: PaymentsClient) {}
  refund(charge: string) { return this.api.refunds.create({ charge }); }
}
export const transfer = (amount: number) => client.transfers.create({ amount, currency: "usd", destination: "acct_1" });`,
      errors: [missing("refunds"), missing("transfers")],
    },
    {
      name: "a client imported through a path alias named after Stripe",
      filename,
      code: `
import { client } from "@/lib/stripe";
export const refund = (charge: string) => client.refunds.create({ charge });`,
      errors: [missing("refunds")],
    },
    {
      name: "the subclass resolved from a DI container by its class",
      filename,
      code: `
import { PaymentsClient } from "./billing-client.js";
declare const container: { resolve<T>(token: new () => T): T };
const payments = container.resolve(PaymentsClient);
export const payout = (amount: number) => payments.payouts.create({ amount, currency: "usd" });`,
      errors: [missing("payouts")],
    },
    {
      name: "a client field typed InstanceType<typeof Stripe>, made in NestJS's onModuleInit (held-out-2)",
      filename,
      code: `
import Stripe from "stripe";
type StripeClient = InstanceType<typeof Stripe>;
export class StripeService {
  private client: StripeClient;
  onModuleInit(): void { this.client = new Stripe(process.env.STRIPE_SECRET_KEY!); }
  createPaymentIntent(params: Parameters<StripeClient["paymentIntents"]["create"]>[0]) { return this.client.paymentIntents.create(params); }
  createRefund(params: Parameters<StripeClient["refunds"]["create"]>[0]) { return this.client.refunds.create(params); }
}`,
      errors: [missing("paymentIntents"), missing("refunds")],
    },
    {
      name: "a client typed by what a factory of the file returns (ReturnType<typeof makeStripe>)",
      filename,
      code: `
import Stripe from "stripe";
function makeStripe() { return new Stripe(process.env.STRIPE_SECRET_KEY!); }
export class Payouts {
  constructor(private readonly client: ReturnType<typeof makeStripe>) {}
  pay(amount: number) { return this.client.transfers.create({ amount, currency: "usd", destination: "acct_1" }); }
}`,
      errors: [missing("transfers")],
    },
    {
      name: "an untyped field given the project's client in a method after construction",
      filename,
      code: `
import { PaymentsClient } from "./billing-client.js";
export class Refunds {
  private client;
  onModuleInit() { this.client = new PaymentsClient(); }
  refund(charge: string) { return this.client.refunds.create({ charge }); }
}`,
      errors: [missing("refunds")],
    },
    {
      name: "a wrapper holding the client, injected into a service",
      filename,
      code: `
import { BillingGateway } from "./billing-client.js";
export class InvoiceService {
  constructor(private readonly gateway: BillingGateway) {}
  bill(customer: string) { return this.gateway.client.invoiceItems.create({ customer, amount: 100, currency: "usd" }); }
}`,
      errors: [missing("invoiceItems")],
    },
    {
      name: "a create with no options argument: spread payload, a parameter, a built object",
      filename,
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function pay(payload: Stripe.PaymentIntentCreateParams, refund: Stripe.RefundCreateParams) {
  await stripe.paymentIntents.create({ ...payload });
  await stripe.refunds.create(refund);
  const params = { ...payload, description: "order" };
  await stripe.paymentIntents.create(params);
  await stripe.paymentIntents.incrementAuthorization("pi_1", { amount: 2 });
}`,
      errors: [missing("paymentIntents"), missing("refunds"), missing("paymentIntents"), missing("paymentIntents", "incrementAuthorization")],
    },
    {
      name: "a key pushed into the arguments under an if",
      filename,
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function pay(amount: number, key?: string) {
  const args: [Stripe.PaymentIntentCreateParams, Stripe.RequestOptions?] = [{ amount, currency: "usd" }];
  if (key) args.push({ idempotencyKey: key });
  await stripe.paymentIntents.create(...args);
}`,
      errors: [somePaths("paymentIntents")],
    },
    {
      name: "a key assigned to the options under an if, in a callback, or after the call",
      filename,
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function pay(amount: number, key?: string, tags: string[] = []) {
  const options: Stripe.RequestOptions = {};
  if (key) options.idempotencyKey = key;
  await stripe.charges.create({ amount, currency: "usd" }, options);
  const later: Stripe.RequestOptions = {};
  tags.forEach((tag) => { later.idempotencyKey = tag; });
  await stripe.payouts.create({ amount, currency: "usd" }, later);
  const after: Stripe.RequestOptions = {};
  await stripe.topups.create({ amount, currency: "usd" }, after);
  after.idempotencyKey = "too-late";
}`,
      errors: [somePaths("charges"), somePaths("payouts"), somePaths("topups")],
    },
  ],
});

// A client reached through a path alias (`@/…`): the names-only config reads the tsconfig's `paths` too (#42), so
// both configs find it.
inBothModes("require-idempotency-key: a client imported through a path alias", rule, {
  valid: [],
  invalid: [
    {
      name: "a client imported through a path alias",
      filename,
      code: `
import { payments } from "@/billing-client.js";
export const bill = (amount: number) => payments.charges.create({ amount, currency: "usd" });`,
      errors: [missing("charges")],
    },
  ],
});

// What only the typed config can find: a client resolved from a generic container whose type argument is the client.
// Names alone prove nothing here, so `recommended` stays silent; the checker knows the method is Stripe's.
const typedOnly = [
  {
    name: "a client resolved from a container by its type",
    filename,
    code: `
import type { PaymentsClient } from "./billing-client.js";
declare const container: { resolve<T>(token: string): T };
const payments = container.resolve<PaymentsClient>("payments");
export const bill = (amount: number) => payments.charges.create({ amount, currency: "usd" });`,
  },
];
ruleTester.run("require-idempotency-key: names alone cannot tell (names only)", rule, { valid: typedOnly, invalid: [] });
typedRuleTester.run("require-idempotency-key: the checker can (typed)", rule, {
  valid: [],
  invalid: typedOnly.map((test) => ({ ...test, options: [{ typeChecked: true }] as [{ typeChecked: boolean }], errors: [missing("charges")] })),
});

// And one the checker clears: request options alone, whatever they are called, known by their type.
typedRuleTester.run("require-idempotency-key: request options known by their type (typed)", rule, {
  valid: [
    {
      name: "Stripe.RequestOptions as the only argument",
      filename,
      options: [{ typeChecked: true }],
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export const draft = (settings: Stripe.RequestOptions) => stripe.invoices.create(settings);`,
    },
  ],
  invalid: [],
});
