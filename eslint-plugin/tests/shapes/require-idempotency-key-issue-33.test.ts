// Names-only config (issue 33): a client typed by an interface or alias whose members come from Stripe's own types
// (`Pick<Stripe, ...>`, `Stripe["charges"]`, nested, mapped, string keys, declared in another module of the project)
// is a Stripe client. Run in both modes: the checker agrees on every case.
import path from "node:path";
import ruleWithSuggestions, { PASS_OPTIONS } from "../../src/rules/require-idempotency-key.js";
import { detectionOnly } from "../detection-only.js";
import { fixturesDir } from "../rule-tester.js";
import { inBothModes } from "./both-modes.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const filename = path.join(fixturesDir, "file.ts");
const missing = { messageId: "missingKey" as const, data: { resource: "paymentIntents", method: "create", repeat: "a retry of the same request", consequence: "charges again", advice: PASS_OPTIONS } };

const service = (imports: string, declaration: string) => `${imports}
${declaration}
export class Billing {
  constructor(private readonly client: Client) {}
  charge(amount: number) { return this.client.paymentIntents.create({ amount, currency: "usd" }); }
}`;
const stripeImport = `import type Stripe from "stripe";`;

inBothModes("require-idempotency-key: issue 33 client types", rule, {
  valid: [
    {
      name: "a type of the project's own, not taken from Stripe",
      filename,
      code: service("", `interface Client { paymentIntents: { create(params: { amount: number; currency: string }): Promise<unknown> } }`),
    },
    {
      name: "a slice of the client, with a key",
      filename,
      code: `${stripeImport}
type Client = Pick<Stripe, "paymentIntents">;
export const charge = (client: Client, key: string) => client.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: key });`,
    },
  ],
  invalid: [
    { name: "type Client = Pick<Stripe, 'paymentIntents'>", filename, code: service(stripeImport, `type Client = Pick<Stripe, "paymentIntents">;`), errors: [missing] },
    { name: "interface Client { paymentIntents: Stripe['paymentIntents'] }", filename, code: service(stripeImport, `interface Client { paymentIntents: Stripe["paymentIntents"] }`), errors: [missing] },
    {
      name: "a member picked from a Stripe resource",
      filename,
      code: service(stripeImport, `interface Client { paymentIntents: Pick<Stripe["paymentIntents"], "create" | "retrieve"> }`),
      errors: [missing],
    },
    {
      name: "a member made of the resource's own methods",
      filename,
      code: service(stripeImport, `interface Client { paymentIntents: { create: Stripe["paymentIntents"]["create"] } }`),
      errors: [missing],
    },
    { name: "a mapped type over resource names", filename, code: service(stripeImport, `type Client = { [K in "paymentIntents" | "refunds"]: Stripe[K] };`), errors: [missing] },
    { name: "a string key", filename, code: service(stripeImport, `interface Client { readonly "paymentIntents": Stripe["paymentIntents"] }`), errors: [missing] },
    {
      name: "an alias declared in another module of the project",
      filename,
      code: service(`import type { PaymentsSlice } from "./payments-slice.js";`, `type Client = PaymentsSlice;`),
      errors: [missing],
    },
    {
      name: "an interface declared in another module of the project, used directly",
      filename,
      code: `import type { ChargesSlice } from "./payments-slice.js";
export const charge = (client: ChargesSlice) => client.charges.create({ amount: 1, currency: "usd" });`,
      errors: [{ ...missing, data: { ...missing.data, resource: "charges" } }],
    },
  ],
});
