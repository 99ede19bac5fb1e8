// Issue 41, unsettled: a `processing` PaymentIntent (a bank debit, which may still fail) was recorded done and never
// looked at again, while the invoice flow keeps its equivalent (an invoice still open after pay) pending. Settled:
// it stays pending (unknown), reserved, for a retry or the reconciler; a retry replays the same PaymentIntent instead
// of debiting again. The real SDK against the sandbox's Stripe (pm_usBankAccount_success: processing), PGlite.
import { PGlite } from "@electric-sql/pglite";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flowContext } from "../../../runtime/flows/flow-adapter.js";
import { paymentIntentFlow } from "../../../runtime/flows/payment-intent-flow.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { createStripeClient } from "../../../runtime/stripe/client.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

let emulator: StripeEmulator;
let db: PGlite;
let guard: Guard;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  db = await PGlite.create();
  guard = await Guard.open({ pglite: db, periodCapCents: 100_000 });
});
afterAll(async () => {
  await guard?.close();
  await db?.close();
  await emulator?.stop();
});

describe("a processing PaymentIntent is not recorded done (issue 41)", () => {
  it("stays pending and reserved; the retry replays the same PaymentIntent, one debit", async () => {
    const admin = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
    const customer = await admin.customers.create({ name: "bank debit" });
    const client = createStripeClient({ apiKey: "rk_test_sandbox", apiBase: emulator.apiBase, timeoutMs: 5_000, maxNetworkRetries: 0 });
    const key = "processing-1";
    const request = { amount: 2_500, currency: "usd", customer: customer.id, payment_method: "pm_usBankAccount_success", confirm: true, off_session: true, metadata: { idempotency_key: key } };
    const run = () =>
      guard.run(
        { scope: "debit", key: { usage: key }, payload: request, spend: { period: "2026-10", currency: "usd", amount: 2_500 }, flow: "payment-intent", idempotencyKey: key },
        (context) => paymentIntentFlow.execute(client, request as never, flowContext(context, Date.now())),
        { classify: (error) => paymentIntentFlow.classify(error, request as never, key) },
      );
    expect(await run()).toMatchObject({ kind: "unknown", detail: expect.stringContaining("processing") });
    expect(await guard.get("debit", { usage: key })).toMatchObject({ state: "pending" });
    expect((await guard.spend("2026-10", "usd")).committedCents).toBe(2_500);
    expect(await run()).toMatchObject({ kind: "unknown" });
    expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(1);
    expect(emulator.ledger.paymentIntents(customer.id)[0]?.status).toBe("processing");
  });
});
