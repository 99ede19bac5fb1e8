// A Stripe webhook endpoint repeats when Stripe sends the event again until it gets a 2xx (#42): ESLint's findings
// there say so, as the scan's do (tests/scan/delivery-context.test.ts), instead of "a retry of the same request", and
// a keyless call's suggestion keys it on the verified event's id.
import path from "node:path";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { expect, it } from "vitest";
import plugin from "../src/index.js";
import { fixturesDir } from "./rule-tester.js";

const webhook = `import Stripe from "stripe";
import express from "express";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const app = express();
app.post("/webhooks/stripe", express.raw({ type: "application/json" }), async (req, res) => {
  const event = stripe.webhooks.constructEvent(req.body, req.headers["stripe-signature"] as string, process.env.WEBHOOK_SECRET!);
  await stripe.refunds.create({ charge: (event.data.object as Stripe.Dispute).charge as string });
  await stripe.transfers.create({ amount: 100, currency: "eur", destination: "acct_1" }, { idempotencyKey: String(Date.now()) });
  res.json({ received: true });
});
`;

it("words a webhook handler's findings for a redelivered webhook event and keys the call on the event's id", async () => {
  const eslint = new ESLint({
    cwd: fixturesDir,
    overrideConfigFile: true,
    overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } }, { files: ["**/*.ts"], ...plugin.configs.recommended }],
  });
  const [result] = await eslint.lintText(webhook, { filePath: path.join(fixturesDir, "webhooks.ts") });
  const messages = result!.messages.map((message) => message.message);
  // what is in scope before a hash of the body: the verified event's id, which Stripe keeps when it retries
  expect(result!.messages[0]!.suggestions?.map((suggestion) => suggestion.fix.text)).toEqual([", { idempotencyKey: `${event.id}:refunds.create` }"]);
  expect(messages).toEqual([
    expect.stringContaining("so a redelivered webhook event refunds again"),
    expect.stringContaining("so a redelivered webhook event gets a new key"),
  ]);
});
