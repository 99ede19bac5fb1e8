// The typed config's confirmations: with a TypeScript program the rules ask the checker whether an object really
// is a Service Bus message or receiver, or a Stripe client, and stay silent where names alone would report.
import noAbandonWithSuggestions from "../src/rules/no-abandon-on-stripe-error.js";
import recordBeforeSettle from "../src/rules/record-before-settle.js";
import requireKeyWithSuggestions from "../src/rules/require-idempotency-key.js";
import stableKeyWithSuggestions from "../src/rules/stable-idempotency-key.js";
import { detectionOnly } from "./detection-only.js";
import { ruleTester, typedRuleTester } from "./rule-tester.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const noAbandonOnStripeError = detectionOnly(noAbandonWithSuggestions);
const requireIdempotencyKey = detectionOnly(requireKeyWithSuggestions);
const stableIdempotencyKey = detectionOnly(stableKeyWithSuggestions);

const typed = [{ typeChecked: true }] as const;

const header = `
import Stripe from "stripe";
import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const receiver = new ServiceBusClient(process.env.SERVICEBUS_CONNECTION_STRING!).createReceiver("billing");
`;

/** An outbox row that happens to have a messageId column (loaded, so no annotation at the use site). */
const outboxKey = `${header}
interface OutboxRow { messageId: string; amount: number }
declare const outbox: { next(): Promise<OutboxRow> };
export async function drain() {
  const row = await outbox.next();
  await stripe.paymentIntents.create({ amount: row.amount, currency: "usd" }, { idempotencyKey: row.messageId });
}`;

/** A real Service Bus message reached through an inferred type. */
const messageKey = `${header}
export async function drain() {
  const [message] = await receiver.receiveMessages(1);
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: String(message!.sequenceNumber) });
}`;

/** A payments gateway of our own with Stripe-like method names, in a file that also uses Stripe. */
const gatewayCharge = `${header}
class Gateway { charges = { create: async (_charge: { amount: number }) => ({ id: "g_1" }) }; }
function gateway() { return new Gateway(); }
export async function bill() {
  const payments = gateway();
  await payments.charges.create({ amount: 1 });
}`;

/** A client from an untyped factory whose return type is Stripe. */
const factoryClient = `
import Stripe from "stripe";
declare function makeClient(): Stripe;
export async function bill() {
  const client = makeClient();
  await client.charges.create({ amount: 1, currency: "usd" });
}`;

/** An in-memory queue with Service Bus method names: abandoning it is not a Service Bus redelivery. */
const fakeQueue = `${header}
class MemoryQueue { async abandonMessage(_m: unknown) {} async completeMessage(_m: unknown) {} }
const queue = new MemoryQueue();
export async function run(message: ServiceBusReceivedMessage) {
  try {
    await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  } catch {
    await queue.abandonMessage(message);
  }
}`;

const realReceiverAbandon = fakeQueue.replace("await queue.abandonMessage(message);", "await receiver.abandonMessage(message);");

const fakeQueueComplete = `${header}
import pg from "pg";
const db = new pg.Pool();
class MemoryQueue { async completeMessage(_m: unknown) {} }
const queue = new MemoryQueue();
export async function run(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await queue.completeMessage(message);
  await db.query("INSERT INTO billing_records (key) VALUES ($1)", [message.body.key]);
}`;

// Without types, names decide: each of these is reported.
ruleTester.run("stable-idempotency-key (names only)", stableIdempotencyKey, {
  valid: [],
  invalid: [
    { code: outboxKey, errors: [{ messageId: "unstableKey" }] },
    // typeChecked without a program (no parserOptions.projectService): falls back to names instead of throwing.
    { name: "typeChecked without type information falls back to names", code: outboxKey, options: typed, errors: [{ messageId: "unstableKey" }] },
  ],
});
ruleTester.run("require-idempotency-key (names only)", requireIdempotencyKey, {
  valid: [],
  invalid: [{ code: gatewayCharge, errors: [{ messageId: "missingKey" }] }],
});
ruleTester.run("no-abandon-on-stripe-error (names only)", noAbandonOnStripeError, {
  valid: [],
  invalid: [{ code: fakeQueue, errors: [{ messageId: "abandonAfterCharge" }] }],
});

// With types, the checker settles them.
typedRuleTester.run("stable-idempotency-key (typed)", stableIdempotencyKey, {
  valid: [{ name: "an outbox row's messageId is not Service Bus metadata", code: outboxKey, options: typed }],
  invalid: [
    {
      name: "a ServiceBusReceivedMessage known only by inference",
      code: messageKey,
      options: typed,
      errors: [{ messageId: "unstableKey" }],
    },
  ],
});
typedRuleTester.run("require-idempotency-key (typed)", requireIdempotencyKey, {
  valid: [{ name: "our own gateway is not a Stripe client", code: gatewayCharge, options: typed }],
  invalid: [
    {
      name: "a client typed Stripe by a factory's return type",
      code: factoryClient,
      options: typed,
      errors: [{ messageId: "missingKey" }],
    },
  ],
});
typedRuleTester.run("no-abandon-on-stripe-error (typed)", noAbandonOnStripeError, {
  valid: [{ name: "an in-memory queue is not a Service Bus receiver", code: fakeQueue, options: typed }],
  invalid: [{ name: "the real receiver", code: realReceiverAbandon, options: typed, errors: [{ messageId: "abandonAfterCharge" }] }],
});
typedRuleTester.run("record-before-settle (typed)", recordBeforeSettle, {
  valid: [{ name: "completing an in-memory queue", code: fakeQueueComplete, options: typed }],
  invalid: [
    {
      name: "completing the real receiver",
      code: fakeQueueComplete.replace("await queue.completeMessage(message);", "await receiver.completeMessage(message);"),
      options: typed,
      errors: [{ messageId: "completeBeforeRecord" }],
    },
  ],
});
