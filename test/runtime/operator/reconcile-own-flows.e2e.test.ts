// `chargeguard reconcile --flows <module>` finishes a consumer's records with the consumer's own flow: the template's
// src/flow.ts (the charge flow, "yours to edit"), edited as a team would, against the built-in charge flow of the same
// name. A stranded billing of that flow is charged by the edited code (its mark on the charge at the Stripe emulator);
// without --flows the built-in flow would have charged it, unmarked. A module that exports no flow is refused, exit 2.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { stableKey } from "../../../runtime/core/stable-key.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { runReconcile } from "./run-reconcile.js";

const templateFlow = new URL("../../../templates/files/flows/charge/src/flow.ts", import.meta.url);
const edit = ["metadata: { ...request.metadata, idempotency_key: context.idempotencyKey },", 'metadata: { ...request.metadata, idempotency_key: context.idempotencyKey, edited_by: "the team" },'];

let emulator: StripeEmulator;
let dir: string;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  dir = mkdtempSync(join(tmpdir(), "chargeguard-own-flows-"));
});
afterAll(async () => {
  await emulator?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("charges a stranded billing with the consumer's edited flow, and refuses a module without one", async () => {
  const source = readFileSync(templateFlow, "utf8");
  expect(source).toContain(edit[0]);
  const flowModule = join(dir, "flow.ts");
  writeFileSync(flowModule, source.replace(edit[0] as string, edit[1] as string));
  const dataDir = join(dir, "billing");

  const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
  const customer = (await stripe.customers.create({ source: "tok_visa" })).id;
  const key = { customerId: "team-1", billingPeriod: "2026-11" };
  const idempotencyKey = stableKey({ ...key, amountCents: 900, currency: "usd" }, { scope: "billing" });
  const guard = await Guard.open({ dataDir });
  // A consumer that died after its claim: pending, released, nothing at Stripe.
  const stranded = await guard.run(
    {
      scope: "billing",
      flow: "charge",
      key,
      payload: { amount: 900, currency: "usd", customer, metadata: { idempotency_key: idempotencyKey } },
      spend: { period: "2026-11", currency: "usd", amount: 900 },
      idempotencyKey,
      owner: "consumer-that-died",
    },
    () => Promise.reject(new Error("the consumer died before recording Stripe's answer")),
  );
  expect(stranded.kind).toBe("unknown");
  await guard.close();

  const env = { STRIPE_API_KEY: "rk_test_sandbox" };
  const report = await runReconcile(["--data-dir", dataDir, "--stripe-api-base", emulator.apiBase, "--flows", flowModule, "--json"], env);
  expect(JSON.parse(report.out)).toMatchObject({ examined: 1, completed: 1 });
  const charges = (await stripe.charges.list({ customer })).data;
  expect(charges.map((charge) => [charge.amount, charge.metadata.edited_by])).toEqual([[900, "the team"]]);

  const empty = join(dir, "no-flow.ts");
  writeFileSync(empty, "export const description = 'events, not a flow';\n");
  await expect(runReconcile(["--data-dir", dataDir, "--flows", empty], env)).rejects.toThrow(/--flows: .*exports no flow adapter/);
  await expect(runReconcile(["--data-dir", dataDir, "--flows", join(dir, "missing.js")], env)).rejects.toThrow(/--flows: no module at/);
});
