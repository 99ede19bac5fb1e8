// chargeguard's own API checked like a Stripe key (#42): guard.run's record key and idempotencyKey, toBilling's key
// and keyFields, and stableKey's fields from a delivery id, randomness or a clock are flagged; inside guard.run's
// work the quick fix uses the key the guard hands the callback, not a hash of the body.
import requireRule from "../../src/rules/require-idempotency-key.js";
import stableRule from "../../src/rules/stable-idempotency-key.js";
import { Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import { ruleTester } from "../rule-tester.js";

const header = `import Stripe from "stripe";
import { randomUUID } from "node:crypto";
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { Guard, stableKey, type BillingEventDefinition } from "chargeguard/runtime";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
declare const guard: Guard;`;

ruleTester.run("stable-idempotency-key: the kit's own identities", stableRule, {
  valid: [
    {
      name: "guard.run keyed on the event's business fields, the work keyed with the guard's key",
      code: `${header}
export async function handle(message: ServiceBusReceivedMessage) {
  const usage = message.body as { id: string; customer: string; cents: number };
  await guard.run({ scope: "usage", flow: "charge", key: { usageId: usage.id }, payload: usage }, async ({ idempotencyKey }) => {
    const charge = await stripe.charges.create({ amount: usage.cents, currency: "usd", customer: usage.customer }, { idempotencyKey });
    return { status: "done", objectId: charge.id };
  });
  return stableKey({ customer: usage.customer, usageId: usage.id }, { scope: "usage" });
}`,
    },
    {
      name: "a run() of something else (no scope and key together) is not the guard",
      code: `${header}
declare const pool: { run(input: { id: string }, work: () => void): void };
pool.run({ id: randomUUID() }, () => {});`,
    },
  ],
  invalid: [
    {
      name: "guard.run keyed on the message id and on randomUUID()",
      code: `${header}
export async function handle(message: ServiceBusReceivedMessage) {
  await guard.run({ scope: "usage", flow: "charge", key: { deliveryId: message.messageId }, payload: {} }, async () => ({ status: "done" }));
  await guard.run({ scope: "usage", flow: "charge", key: { run: randomUUID() }, payload: {}, idempotencyKey: \`usage-\${Date.now()}\` }, async () => ({ status: "done" }));
}`,
      errors: [
        { messageId: "unstableIdentity", line: 8 },
        { messageId: "unstableIdentity", line: 9 },
        { messageId: "unstableIdentity", line: 9 },
      ],
    },
    {
      name: "toBilling's key and keyFields, and stableKey's fields, from a clock or a lock token",
      code: `${header}
export const billing: BillingEventDefinition<{ customer: string }, unknown> = {
  schema: undefined as never,
  toBilling: (event) => ({ key: { customer: event.customer, at: Date.now() }, keyFields: { customer: event.customer }, request: () => ({}) }),
};
export const key = (message: ServiceBusReceivedMessage) => stableKey({ token: message.lockToken }, { scope: "usage" });`,
      errors: [
        { messageId: "unstableIdentity", line: 9 },
        { messageId: "unstableIdentity", line: 11 },
      ],
    },
    {
      name: "inside guard.run's work, a per-delivery key is replaced by the guard's own key, not a hash of the body",
      code: `${header}
export async function handle(message: ServiceBusReceivedMessage) {
  await guard.run({ scope: "usage", flow: "charge", key: { id: "u1" }, payload: {} }, async (run) => {
    await stripe.charges.create({ amount: 100, currency: "usd" }, { idempotencyKey: message.messageId as string });
    return { status: "done" };
  });
}`,
      errors: [
        {
          messageId: "unstableKey",
          suggestions: [
            {
              messageId: "useGuardKey",
              data: { key: "run.idempotencyKey" },
              output: `${header}
export async function handle(message: ServiceBusReceivedMessage) {
  await guard.run({ scope: "usage", flow: "charge", key: { id: "u1" }, payload: {} }, async (run) => {
    await stripe.charges.create({ amount: 100, currency: "usd" }, { idempotencyKey: run.idempotencyKey });
    return { status: "done" };
  });
}`,
            },
          ],
        },
      ],
    },
  ],
});

// The wording: what the input is and the unstable source by name (RuleTester compares whole messages only).
describe("the kit's identities are named in the message", () => {
  const linter = new Linter({ configType: "flat" });
  const messages = (code: string) =>
    linter
      .verify(code, [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser }, plugins: { chargeguard: { rules: { "stable-idempotency-key": stableRule } } as never }, rules: { "chargeguard/stable-idempotency-key": "error" } }], "handler.ts")
      .map((message) => message.message);
  it("names guard.run's key and toBilling's key with their sources", () => {
    const found = messages(`${header}
export const run = (message: ServiceBusReceivedMessage) => guard.run({ scope: "usage", flow: "charge", key: { id: message.messageId, n: randomUUID() }, payload: {} }, async () => ({ status: "done" }));
export const billing = { toBilling: (event: { c: string }) => ({ key: { c: event.c, at: Date.now() }, request: () => ({}) }) };`);
    expect(found.map((text) => text.slice(0, text.indexOf(":")))).toEqual([
      "This guard record key derives from messageId",
      "This guard record key derives from crypto.randomUUID()",
      "This toBilling() key derives from Date.now()",
    ]);
  });
});

ruleTester.run("require-idempotency-key: the guard's key first", requireRule, {
  valid: [],
  invalid: [
    {
      name: "a keyless call inside guard.run's work gets the key the guard hands the callback",
      code: `${header}
export async function handle(message: ServiceBusReceivedMessage) {
  await guard.run({ scope: "usage", flow: "charge", key: { id: "u1" }, payload: {} }, async ({ idempotencyKey }) => {
    await stripe.charges.create({ amount: 100, currency: "usd" });
    return { status: "done" };
  });
}`,
      errors: [
        {
          messageId: "missingKey",
          suggestions: [
            {
              messageId: "addGuardKey",
              data: { key: "idempotencyKey" },
              output: `${header}
export async function handle(message: ServiceBusReceivedMessage) {
  await guard.run({ scope: "usage", flow: "charge", key: { id: "u1" }, payload: {} }, async ({ idempotencyKey }) => {
    await stripe.charges.create({ amount: 100, currency: "usd" }, { idempotencyKey });
    return { status: "done" };
  });
}`,
            },
          ],
        },
      ],
    },
  ],
});
