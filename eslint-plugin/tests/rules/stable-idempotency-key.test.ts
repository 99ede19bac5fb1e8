import { consequenceOf } from "../../src/utils/consequence.js";
import ruleWithSuggestions from "../../src/rules/stable-idempotency-key.js";
import { detectionOnly } from "../detection-only.js";
import { cjsHeader, esmHeader, ruleTester } from "../rule-tester.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const PER_DELIVERY = "it changes on every redelivery of the same message";
const PER_MESSAGE = "it is new when a dead-lettered message is resubmitted or a producer re-sends the event";
const RANDOM = "it is random, so a redelivered message gets a new key";
const CLOCK = "it reads the clock, so a redelivered message gets a new key";
const TIME_UUID = "it is a time-based id, new on every call";

const WHY: Record<string, string> = {
  lockToken: PER_DELIVERY,
  deliveryCount: PER_DELIVERY,
  lockedUntilUtc: PER_DELIVERY,
  messageId: PER_MESSAGE,
  sequenceNumber: PER_MESSAGE,
  enqueuedTimeUtc: PER_MESSAGE,
  "uuid v1()": TIME_UUID,
  "uuid v7()": TIME_UUID,
  "Date.now()": CLOCK,
  "new Date()": CLOCK,
  "performance.now()": CLOCK,
};

/** The expected report: the message names the source and why it breaks idempotency. */
/** What the message says of the call: its name and what a repeat of it does (`paymentIntents.create` unless given). */
const about = (call = "paymentIntents.create", moneyMoving = true) => {
  const [resource, method] = [call.slice(0, call.lastIndexOf(".")), call.slice(call.lastIndexOf(".") + 1)];
  return call === "" ? { call: "this request", consequence: "runs it again" } : { call: `${call}()`, consequence: consequenceOf(resource, method, moneyMoving) };
};
const unstable = (source: string, call?: string, moneyMoving?: boolean) => ({ messageId: "unstableKey" as const, data: { source, why: WHY[source] ?? RANDOM, ...about(call, moneyMoving) } });
/** The same for a Billing Meter event's identifier (Stripe's dedupe for meter events). */
const unstableIdentifier = (source: string) => ({
  messageId: "unstableIdentifier" as const,
  data: { source, why: (WHY[source] ?? RANDOM).replace(/\bkey\b/, "identifier") },
});

ruleTester.run("stable-idempotency-key", rule, {
  valid: [
    {
      name: "a meter event identifier from the event's business fields",
      code: `${esmHeader}
async function meter(message: ServiceBusReceivedMessage) {
  const usage = message.body as { customer: string; period: string; units: number };
  await stripe.billing.meterEvents.create({
    event_name: "api_calls",
    payload: { stripe_customer_id: usage.customer, value: String(usage.units) },
    identifier: \`usage:\${usage.customer}:\${usage.period}\`,
    timestamp: Math.floor(Date.now() / 1000),
  });
}`,
    },
    {
      name: "key from the body's business fields",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const event = message.body as { customerId: string; billingPeriod: string; amount: number };
  const key = \`charge:\${event.customerId}:\${event.billingPeriod}\`;
  await stripe.paymentIntents.create({ amount: event.amount, currency: "usd" }, { idempotencyKey: key });
}`,
    },
    {
      name: "a messageId field of the body is the producer's data",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const { messageId, amount } = message.body;
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: \`evt-\${messageId}\` });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: message.body.messageId });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: JSON.parse(message.body).messageId });
}`,
    },
    {
      name: "a hash of the body",
      code: `${esmHeader}
import { createHash } from "node:crypto";
async function handle(message: ServiceBusReceivedMessage) {
  const key = createHash("sha256").update(JSON.stringify(message.body)).digest("hex");
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: key });
}`,
    },
    {
      name: "name-based UUIDs (v3, v5) are stable",
      code: `${esmHeader}
import { v5, v3 } from "uuid";
const NAMESPACE = "6ba7b811-9dad-11d1-80b4-00c04fd430c8";
async function handle(message: ServiceBusReceivedMessage) {
  const { customerId, billingPeriod } = message.body;
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: v5(\`\${customerId}:\${billingPeriod}\`, NAMESPACE) });
  await stripe.refunds.create({ payment_intent: "pi_1" }, { idempotencyKey: v3(customerId, NAMESPACE) });
}`,
    },
    {
      name: "random values used for something other than the key",
      code: `${esmHeader}
import { randomUUID } from "node:crypto";
declare const log: (line: string) => void;
async function handle(message: ServiceBusReceivedMessage) {
  const traceId = randomUUID();
  const startedAt = Date.now();
  log(\`\${traceId} \${message.messageId} \${message.deliveryCount}\`);
  await stripe.paymentIntents.create(
    { amount: 1, currency: "usd", metadata: { trace: traceId } },
    { idempotencyKey: \`\${message.body.customerId}:\${message.body.billingPeriod}\` },
  );
  log(String(Date.now() - startedAt));
}`,
    },
    {
      name: "a parameter whose origin is outside the file",
      code: `
import type Stripe from "stripe";
export async function charge(stripe: Stripe, amount: number, key: string) {
  return stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: key });
}`,
    },
    {
      name: "a helper whose parameter is declared as the business event",
      code: `${esmHeader}
interface UsageEvent { customerId: string; messageId: string }
function keyFor(event: UsageEvent) { return \`\${event.customerId}:\${event.messageId}\`; }
export async function charge(event: UsageEvent) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: keyFor(event) });
}`,
    },
    {
      name: "a same-file helper that ignores its unstable argument",
      code: `${esmHeader}
function keyFor(_message: unknown, customerId: string) { return \`key:\${customerId}\`; }
async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: keyFor(message.messageId, message.body.customerId) });
}`,
    },
    {
      name: "a date parsed from the event is not a clock reading",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const day = new Date(message.body.occurredAt).toISOString().slice(0, 10);
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: \`\${message.body.customerId}:\${day}\` });
}`,
    },
    {
      name: "a key looked up by the messageId is what was stored, not the messageId",
      code: `${esmHeader}
declare const keys: Map<string, string>;
async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: keys.get(message.messageId) });
}`,
    },
    {
      name: "a reassigned let is not followed",
      code: `${esmHeader}
import { randomUUID } from "node:crypto";
async function handle(message: ServiceBusReceivedMessage) {
  let key = randomUUID();
  key = message.body.customerId;
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: key });
}`,
    },
    {
      name: "an object that is not a Stripe client",
      code: `
import { randomUUID } from "node:crypto";
class Ledger { charges = { create: (_entry: object, _options: object) => undefined }; }
const ledger = new Ledger();
ledger.charges.create({ amount: 1 }, { idempotencyKey: randomUUID() });`,
    },
    {
      name: "reads carry no key",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.retrieve(message.body.paymentIntentId);
  await stripe.paymentIntents.list({ customer: message.body.stripeCustomerId });
}`,
    },
    {
      name: "an Idempotency-Key header sent to the team's own API, whose address names no Stripe host (#42)",
      code: `async function notifyInvoiced(invoiceId: string) {
  await fetch(\`\${process.env.ACCOUNTS_URL}/v1/invoiced\`, { method: "POST", headers: { "Idempotency-Key": \`\${invoiceId}-\${Date.now()}\` } });
  await fetch("https://accounts.internal/v1/invoiced", { method: "POST", headers: { "idempotency-key": String(Date.now()) } });
}`,
    },
  ],
  invalid: [
    {
      name: "an Idempotency-Key header on a request whose address mentions Stripe or cannot be read",
      code: `async function refund(url: string) {
  await fetch(\`\${process.env.STRIPE_API_BASE}/v1/refunds\`, { method: "POST", headers: { "Idempotency-Key": String(Date.now()) } });
  await fetch(url, { method: "POST", headers: { "Idempotency-Key": String(Date.now()) } });
}`,
      errors: [{ messageId: "unstableKey" }, { messageId: "unstableKey" }],
    },
    {
      name: "meter event identifiers from delivery metadata, randomness or the clock (v1, v2, a stream)",
      code: `${esmHeader}
import { randomUUID } from "node:crypto";
async function meter(message: ServiceBusReceivedMessage, token: string) {
  const usage = message.body as { customer: string; units: number };
  await stripe.billing.meterEvents.create({ event_name: "api_calls", payload: { value: "1" }, identifier: message.messageId as string });
  await stripe.billing.meterEvents.create({ event_name: "api_calls", payload: { value: "1" }, identifier: \`\${usage.customer}:\${message.lockToken}\` });
  const identifier = randomUUID();
  await stripe.v2.billing.meterEvents.create({ event_name: "api_calls", payload: { value: "1" }, identifier });
  await new Stripe(token).v2.billing.meterEventStream.create({
    events: [{ event_name: "api_calls", payload: { value: "1" }, identifier: \`\${usage.customer}-\${Date.now()}\` }],
  });
  await receiver.completeMessage(message);
}`,
      errors: [unstableIdentifier("messageId"), unstableIdentifier("lockToken"), unstableIdentifier("crypto.randomUUID()"), unstableIdentifier("Date.now()")],
    },
    {
      name: "a meter event's idempotency key is checked too",
      code: `${esmHeader}
async function meter(message: ServiceBusReceivedMessage) {
  await stripe.billing.meterEvents.create(
    { event_name: "api_calls", payload: { value: "1" }, identifier: \`usage:\${(message.body as { id: string }).id}\` },
    { idempotencyKey: message.messageId as string },
  );
}`,
      errors: [unstable("messageId", "billing.meterEvents.create")],
    },
    {
      name: "seed failure mode 2: the key is the messageId",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const idempotencyKey = \`charge-\${message.messageId}\`;
  await stripe.charges.create({ amount: message.body.amountCents, currency: "usd" }, { idempotencyKey });
  await receiver.completeMessage(message);
}`,
      errors: [unstable("messageId", "charges.create")],
    },
    {
      name: "lockToken through a hash chain",
      code: `${esmHeader}
import { createHash } from "node:crypto";
async function handle(message: ServiceBusReceivedMessage) {
  const digest = createHash("sha256").update(String(message.lockToken)).digest("hex");
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: digest.slice(0, 32) });
}`,
      errors: [unstable("lockToken")],
    },
    {
      name: "deliveryCount, sequenceNumber, enqueuedTimeUtc, lockedUntilUtc through destructuring",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const { deliveryCount, sequenceNumber: seq, enqueuedTimeUtc } = message;
  const { lockedUntilUtc } = message;
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: \`a-\${deliveryCount}\` });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: seq.toString() });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: enqueuedTimeUtc.toISOString() });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: String(lockedUntilUtc) });
}`,
      errors: [unstable("deliveryCount"), unstable("sequenceNumber"), unstable("enqueuedTimeUtc"), unstable("lockedUntilUtc")],
    },
    {
      name: "randomness: crypto named, namespace and global, uuid v4/v7, nanoid, Math.random",
      code: `${esmHeader}
import { randomUUID } from "node:crypto";
import * as nodeCrypto from "crypto";
import { v4 as uuidv4, v7 } from "uuid";
import * as uuid from "uuid";
import { nanoid, customAlphabet } from "nanoid";
const shortId = customAlphabet("abcdef", 10);
export async function charge(amount: number) {
  const create = (key: string) => stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: key });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: randomUUID() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: nodeCrypto.randomUUID() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: crypto.randomUUID() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: globalThis.crypto.randomUUID() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: uuidv4() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: v7() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: uuid.v1() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: nanoid() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: shortId() });
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: Math.random().toString(36).slice(2) });
  return create;
}`,
      errors: [
        unstable("crypto.randomUUID()"),
        unstable("crypto.randomUUID()"),
        unstable("crypto.randomUUID()"),
        unstable("crypto.randomUUID()"),
        unstable("uuid v4()"),
        unstable("uuid v7()"),
        unstable("uuid v1()"),
        unstable("nanoid()"),
        unstable("a nanoid customAlphabet() generator"),
        unstable("Math.random()"),
      ],
    },
    {
      name: "clocks: Date.now(), new Date(), performance.now()",
      code: `${esmHeader}
import { performance } from "node:perf_hooks";
export async function charge(customerId: string) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: customerId + "-" + Date.now() });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: \`\${customerId}-\${new Date().toISOString()}\` });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: \`\${customerId}-\${performance.now()}\` });
}`,
      errors: [unstable("Date.now()"), unstable("new Date()"), unstable("performance.now()")],
    },
    {
      name: "options built in a variable and merged by spread",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const base = { idempotencyKey: message.messageId };
  const options = { ...base, stripeAccount: "acct_1" };
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, options);
}`,
      errors: [unstable("messageId")],
    },
    {
      name: "an Idempotency-Key header, in stripe-node options and in a raw request",
      code: `${esmHeader}
import { randomUUID } from "node:crypto";
async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { headers: { "Idempotency-Key": message.lockToken } });
  await fetch("https://api.stripe.com/v1/payment_intents", { method: "POST", headers: { "idempotency-key": randomUUID() } });
}`,
      errors: [unstable("lockToken"), unstable("crypto.randomUUID()", "")],
    },
    {
      name: "??, || and ?: keep every branch",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage, retry: boolean) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key ?? message.messageId });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key || \`\${message.deliveryCount}\` });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: retry ? message.body.key : String(message.sequenceNumber) });
}`,
      errors: [unstable("messageId"), unstable("deliveryCount"), unstable("sequenceNumber")],
    },
    {
      name: "TS wrappers, await and .join()",
      code: `${esmHeader}
async function makeKey(): Promise<string> { return crypto.randomUUID(); }
async function handle(message: ServiceBusReceivedMessage) {
  const key = (message.lockToken as string)!;
  const awaited = await makeKey();
  const parts = [message.body.customerId, message.messageId satisfies string | undefined].join(":");
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: key });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: awaited });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: parts });
}`,
      errors: [unstable("lockToken"), unstable("crypto.randomUUID()"), unstable("messageId")],
    },
    {
      name: "a same-file helper with arguments bound to parameters",
      code: `${esmHeader}
const keyFor = (m: ServiceBusReceivedMessage, customerId: string) => \`\${customerId}:\${m.sequenceNumber}\`;
async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: keyFor(message, message.body.customerId) });
}`,
      errors: [unstable("sequenceNumber")],
    },
    {
      name: "a parameter the file itself passes a messageId to",
      code: `${esmHeader}
async function charge(amount: number, key: string) {
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: key });
}
async function handle(message: ServiceBusReceivedMessage) {
  await charge(message.body.amount, message.messageId);
}`,
      errors: [unstable("messageId")],
    },
    {
      name: "a class-based consumer: the client in a field, the key from a method",
      code: `
import Stripe from "stripe";
import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
export class BillingConsumer {
  private readonly stripe: Stripe;
  constructor(private readonly receiver: ServiceBusReceiver, apiKey: string) {
    this.stripe = new Stripe(apiKey);
  }
  private keyFor(message: ServiceBusReceivedMessage): string {
    return \`bill-\${message.enqueuedTimeUtc.getTime()}\`;
  }
  async handle(message: ServiceBusReceivedMessage): Promise<void> {
    await this.stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: this.keyFor(message) });
    await this.receiver.completeMessage(message);
  }
}`,
      errors: [unstable("enqueuedTimeUtc")],
    },
    {
      name: "a subscribe handler that destructures the message",
      code: `${esmHeader}
receiver.subscribe({
  processMessage: async ({ body, messageId }) => {
    await stripe.paymentIntents.create({ amount: body.amount, currency: "usd" }, { idempotencyKey: \`\${body.customerId}-\${messageId}\` });
  },
  processError: async () => {},
});`,
      errors: [unstable("messageId")],
    },
    {
      name: "CommonJS consumer (.cjs) with require()",
      filename: "consumer.cjs",
      code: `${cjsHeader}
const { randomUUID } = require("node:crypto");
const { v4: uuidv4 } = require("uuid");
async function handle(message) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: randomUUID() });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: require("uuid").v4() });
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: uuidv4() });
  await receiver.completeMessage(message);
}
module.exports = { handle };`,
      languageOptions: { parserOptions: { sourceType: "script" } },
      errors: [unstable("crypto.randomUUID()"), unstable("uuid v4()"), unstable("uuid v4()")],
    },
    {
      name: "an ESM JavaScript consumer (.mjs)",
      filename: "consumer.mjs",
      code: `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY);
export async function handle(message) {
  const key = ["bill", message.body.customerId, message.deliveryCount].join("-");
  await stripe.invoices.pay(message.body.invoiceId, {}, { idempotencyKey: key });
}`,
      errors: [unstable("deliveryCount", "invoices.pay", false)],
    },
  ],
});
