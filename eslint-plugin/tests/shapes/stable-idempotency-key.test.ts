// More random and clock sources, fallbacks, keys passed through wrappers, message ids taken in a loop.
import { consequenceOf } from "../../src/utils/consequence.js";
import ruleWithSuggestions from "../../src/rules/stable-idempotency-key.js";
import { detectionOnly } from "../detection-only.js";
import { esmHeader } from "../rule-tester.js";
import { inBothModes } from "./both-modes.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const RANDOM = "it is random, so a redelivered message gets a new key";
const CLOCK = "it reads the clock, so a redelivered message gets a new key";
const TIME_ID = "it is a time-based id, new on every call";
const PER_MESSAGE = "it is new when a dead-lettered message is resubmitted or a producer re-sends the event";
/** What the message says of the call: its name and what a repeat of it does (`paymentIntents.create` unless given). */
const about = (call = "paymentIntents.create", moneyMoving = true) => {
  const [resource, method] = [call.slice(0, call.lastIndexOf(".")), call.slice(call.lastIndexOf(".") + 1)];
  return call === "" ? { call: "this request", consequence: "runs it again" } : { call: `${call}()`, consequence: consequenceOf(resource, method, moneyMoving) };
};
const unstable = (source: string, why: string, call?: string, moneyMoving?: boolean) => ({ messageId: "unstableKey" as const, data: { source, why, ...about(call, moneyMoving) } });

/** `create(key)` charges with that key, so each line below only varies the key. */
const charge = (key: string) => `  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: ${key} });`;

inBothModes("stable-idempotency-key: real shapes", rule, {
  valid: [
    {
      name: "a message id destructured from the body's items in a loop",
      code: `${esmHeader}
export async function handle(message: ServiceBusReceivedMessage) {
  for (const { messageId, amount } of message.body.items) {
    await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: \`item-\${messageId}\` });
  }
}`,
    },
    {
      name: "a fallback from the body to another business field",
      code: `${esmHeader}
export async function handle(message: ServiceBusReceivedMessage) {
  const body = message.body as { ref?: string; customerId: string; period: string };
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: body.ref ?? \`\${body.customerId}:\${body.period}\` });
}`,
    },
    {
      name: "dates from the event are not clock readings",
      code: `${esmHeader}
import dayjs from "dayjs";
export async function handle(message: ServiceBusReceivedMessage) {
  const period = dayjs(message.body.occurredAt).format("YYYY-MM");
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: \`\${message.body.customerId}:\${period}\` });
}`,
    },
  ],
  invalid: [
    {
      name: "ulid, cuid, cuid2, nanoid variants, uuid v6, generators",
      code: `${esmHeader}
import { ulid, monotonicFactory } from "ulid";
import cuid from "cuid";
import { createId, init } from "@paralleldrive/cuid2";
import { nanoid as quickId } from "nanoid/non-secure";
import { customRandom } from "nanoid";
import { v6 } from "uuid";
const nextUlid = monotonicFactory();
const shortCuid = init({ length: 10 });
const seeded = customRandom("abc", 8, (size) => new Uint8Array(size));
export async function bill() {
${charge("ulid()")}
${charge("nextUlid()")}
${charge("cuid()")}
${charge("createId()")}
${charge("shortCuid()")}
${charge("quickId()")}
${charge("seeded()")}
${charge("v6()")}
}`,
      errors: [
        unstable("ulid()", TIME_ID),
        unstable("a ulid monotonicFactory() generator", TIME_ID),
        unstable("cuid()", TIME_ID),
        unstable("cuid2 createId()", RANDOM),
        unstable("a cuid2 init() generator", RANDOM),
        unstable("nanoid()", RANDOM),
        unstable("a nanoid customRandom() generator", RANDOM),
        unstable("uuid v6()", TIME_ID),
      ],
    },
    {
      name: "crypto bytes, hrtime, performance.now and Date in any form",
      code: `${esmHeader}
import { randomBytes } from "node:crypto";
import dayjs from "dayjs";
export async function bill() {
${charge("randomBytes(16).toString(\"hex\")")}
${charge("Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString(\"hex\")")}
${charge("String(process.hrtime.bigint())")}
${charge("`k-${performance.now()}`")}
${charge("String(+new Date())")}
${charge("String(new Date().getTime())")}
${charge("new Date(Date.now()).toISOString()")}
${charge("dayjs().format()")}
}`,
      errors: [
        unstable("crypto.randomBytes()", RANDOM),
        unstable("crypto.getRandomValues()", RANDOM),
        unstable("process.hrtime.bigint()", CLOCK),
        unstable("performance.now()", CLOCK),
        unstable("new Date()", CLOCK),
        unstable("new Date()", CLOCK),
        unstable("Date.now()", CLOCK),
        unstable("dayjs()", CLOCK),
      ],
    },
    {
      name: "a fallback to a random key, a destructuring default, a parameter default",
      code: `${esmHeader}
import { randomUUID } from "node:crypto";
export async function handle(message: ServiceBusReceivedMessage) {
  const body = message.body as { ref?: string };
  const key = body.ref ?? randomUUID();
  const { ref = randomUUID() } = message.body;
${charge("key")}
${charge("ref")}
}
export async function charge(amount: number, key = Date.now().toString()) {
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: key });
}`,
      errors: [unstable("crypto.randomUUID()", RANDOM), unstable("crypto.randomUUID()", RANDOM), unstable("Date.now()", CLOCK)],
    },
    {
      name: "a key passed through a same-file wrapper",
      code: `${esmHeader}
async function withIdempotency<T>(key: string, call: (options: { idempotencyKey: string }) => Promise<T>): Promise<T> {
  return call({ idempotencyKey: \`billing:\${key}\` });
}
export async function handle(message: ServiceBusReceivedMessage) {
  await withIdempotency(message.messageId, (options) => stripe.paymentIntents.create({ amount: 1, currency: "usd" }, options));
}`,
      errors: [unstable("messageId", PER_MESSAGE)],
    },
    {
      name: "a key passed through a wrapper from another module named for idempotency",
      code: `${esmHeader}
import { withIdempotency } from "./idempotency.js";
export async function handle(message: ServiceBusReceivedMessage) {
  await withIdempotency(\`charge-\${message.messageId}\`, (options: { idempotencyKey: string }) =>
    stripe.paymentIntents.create({ amount: 1, currency: "usd" }, options),
  );
}`,
      errors: [unstable("messageId", PER_MESSAGE)],
    },
    {
      name: "a message id destructured in a loop over received messages",
      code: `${esmHeader}
export async function handleBatch(messages: ServiceBusReceivedMessage[]) {
  for (const { messageId, body } of messages) {
    await stripe.paymentIntents.create({ amount: body.amount, currency: "usd" }, { idempotencyKey: messageId });
  }
}`,
      errors: [unstable("messageId", PER_MESSAGE)],
    },
    {
      name: "any request on a Stripe resource that carries a key (a usage record job)",
      code: `
import Stripe from "stripe";
import { v4 as uuid } from "uuid";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const idempotencyKey = uuid();
export const report = (item: string, quantity: number) =>
  (stripe.subscriptionItems as unknown as { createUsageRecord(id: string, params: object, options: object): Promise<unknown> })
    .createUsageRecord(item, { quantity, action: "set" }, { idempotencyKey });`,
      errors: [unstable("uuid v4()", "it is random, so a retry of the same request gets a new key", "subscriptionItems.createUsageRecord", false)],
    },
    {
      name: "worded for a retry where the file handles no message (an HTTP handler)",
      code: `
import Stripe from "stripe";
import { randomUUID } from "node:crypto";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
export async function POST(request: Request) {
  const { amount } = (await request.json()) as { amount: number };
  await stripe.paymentIntents.create({ amount, currency: "usd" }, { idempotencyKey: randomUUID() });
}`,
      errors: [unstable("crypto.randomUUID()", "it is random, so a retry of the same request gets a new key")],
    },
  ],
});
