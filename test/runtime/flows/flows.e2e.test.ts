// Each flow adapter under the guard primitive (Guard on PGlite), through the real `stripe` SDK against the Stripe
// emulator, with one adjustable clock for leases, Stripe's 24 h key window and the meter's identifier window.
import { PGlite } from "@electric-sql/pglite";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeFlow, type ChargeRequest } from "../../../runtime/flows/charge-flow.js";
import { flowContext, type FlowAdapter } from "../../../runtime/flows/flow-adapter.js";
import { invoiceFlow, type InvoiceRequest } from "../../../runtime/flows/invoice-flow.js";
import { meterEventFlow, meterIdentifier, type MeterEventRequest } from "../../../runtime/flows/meter-event-flow.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { reconcile } from "../../../runtime/operator/reconcile.js";
import type { GuardRunInput } from "../../../runtime/guard/guarded-run.js";
import { stableKey } from "../../../runtime/core/stable-key.js";
import { stripeAccess, type StripeAccess } from "../../../runtime/stripe/stripe-access.js";
import { EnvironmentKeyProvider } from "../../../runtime/stripe/vault/environment-key-provider.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

const hour = 3_600_000;
let emulator: StripeEmulator;
let db: PGlite;
let guard: Guard;
let stripe: Stripe;
/** The consumer's way to Stripe, which the reconciler takes: the environment's key here, no vault. */
let access: StripeAccess;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  db = await PGlite.create();
  guard = await Guard.open({ pglite: db, clock: emulator.clock, leaseMs: 60_000, periodCapCents: 1_000_000 });
  // A short timeout so a hung request (commitThenHang) fails fast as a StripeConnectionError.
  stripe = new Stripe("rk_test_flows", { ...emulator.stripeConfig, maxNetworkRetries: 0, timeout: 1_500 });
  access = stripeAccess({ keys: new EnvironmentKeyProvider({ apiKey: "rk_test_flows" }), apiBase: emulator.apiBase, timeoutMs: 1_500, maxNetworkRetries: 0 });
});
afterAll(async () => {
  await guard?.close();
  await db?.close();
  await emulator?.stop();
});

function run<R>(flow: FlowAdapter<R>, input: Omit<GuardRunInput, "flow" | "payload">, request: R) {
  return guard.run(
    { ...input, flow: flow.name, payload: request as Record<string, unknown> },
    (context) => flow.execute(stripe, request, flowContext(context, emulator.clock.now())),
    { classify: (error) => flow.classify(error, request, input.idempotencyKey ?? stableKey(input.key, { scope: input.scope })) },
  );
}

const customer = (paymentMethod = "pm_card_visa") =>
  stripe.customers.create({ invoice_settings: { default_payment_method: paymentMethod }, source: paymentMethod === "pm_card_visa" ? "tok_visa" : "tok_chargeDeclined" });

describe("invoice flow", () => {
  const invoiceFor = (cus: string): InvoiceRequest => ({ customer: cus, currency: "usd", items: [{ amount: 1_000, description: "api" }, { amount: 250 }] });

  it("creates the invoice, adds its items with invoice:, finalizes and pays it; a replay calls nothing", async () => {
    const { id: cus } = await customer();
    const input = { scope: "usage", key: { usageId: `u-${cus}` }, spend: { period: "2026-10-14", currency: "usd", amount: 1_250 } };
    const outcome = await run(invoiceFlow, input, invoiceFor(cus));
    expect(outcome).toMatchObject({ kind: "done", objectId: expect.stringMatching(/^in_/) });
    const [invoice] = emulator.ledger.invoices(cus);
    expect(invoice).toMatchObject({ status: "paid", amount_paid: 1_250, metadata: { idempotency_key: outcome.idempotencyKey } });
    expect(emulator.ledger.invoiceItems(cus).map((i) => [i.amount, i.invoice])).toEqual([[1_000, invoice?.id], [250, invoice?.id]]);
    expect((await guard.get("usage", input.key))?.steps).toEqual({
      invoice: invoice?.id, "item-0": expect.stringMatching(/^ii_/), "item-1": expect.stringMatching(/^ii_/), finalize: invoice?.id, pay: invoice?.id,
    });
    expect(await run(invoiceFlow, input, invoiceFor(cus))).toMatchObject({ kind: "already-done" });
    expect(emulator.ledger.invoices(cus)).toHaveLength(1);
    expect(emulator.ledger.charges(cus)).toHaveLength(1);
  });

  it("resumes after an unknown outcome from the last recovery point, and past the key window finds an item Stripe made but we did not record", async () => {
    const { id: cus } = await customer();
    const input = { scope: "usage", key: { usageId: `u-${cus}` }, spend: { period: "2026-10-15", currency: "usd", amount: 1_250 } };
    // The second item is created at Stripe, then the answer never arrives: the step is not recorded.
    const hang = emulator.faults.inject({ path: "/v1/invoiceitems", method: "POST", times: 1, when: (r) => r.params["amount"] === "250", action: "commitThenHang" });
    expect(await run(invoiceFlow, input, invoiceFor(cus))).toMatchObject({ kind: "unknown" });
    expect(hang.hits).toBe(1);
    expect(Object.keys((await guard.get("usage", input.key))?.steps ?? {}).sort()).toEqual(["invoice", "item-0"]);
    // A day later Stripe may have pruned the key: the item is found by its key in metadata, not created again.
    emulator.clock.advance(25 * hour);
    expect(await run(invoiceFlow, input, invoiceFor(cus))).toMatchObject({ kind: "done" });
    expect(emulator.ledger.invoiceItems(cus).map((i) => i.amount)).toEqual([1_000, 250]);
    expect(emulator.ledger.invoices(cus).map((i) => [i.status, i.amount_paid])).toEqual([["paid", 1_250]]);
  });

  it("a decline at pay is recorded declined with the invoice, and its reservation given back", async () => {
    const { id: cus } = await customer("pm_card_chargeDeclined");
    const input = { scope: "usage", key: { usageId: `u-${cus}` }, spend: { period: "2026-10-16", currency: "usd", amount: 1_250 } };
    const outcome = await run(invoiceFlow, input, invoiceFor(cus));
    expect(outcome).toMatchObject({ kind: "declined" });
    expect(await guard.get("usage", input.key)).toMatchObject({ state: "declined", objectId: null });
    expect(await guard.spend("2026-10-16", "usd")).toMatchObject({ committedCents: 0 });
  });
});

describe("invoice flow, a payment that processes (a bank debit)", () => {
  it("an invoice still open after pay is not declined: pending and reserved until Stripe says paid, then done, one debit", async () => {
    const { id: cus } = await stripe.customers.create({ invoice_settings: { default_payment_method: "pm_usBankAccount_success" } });
    const input = { scope: "usage", key: { usageId: `u-${cus}` }, spend: { period: "2026-10-17", currency: "usd", amount: 1_250 } };
    const request: InvoiceRequest = { customer: cus, currency: "usd", items: [{ amount: 1_000 }, { amount: 250 }] };
    const first = await run(invoiceFlow, input, request);
    expect(first).toMatchObject({ kind: "unknown", detail: expect.stringMatching(/still open after pay/) });
    expect(emulator.ledger.invoices(cus).map((i) => i.status)).toEqual(["open"]);
    const pending = await guard.get("usage", input.key);
    expect(pending).toMatchObject({ state: "pending", lockedUntil: null });
    expect(Object.keys(pending?.steps ?? {})).not.toContain("pay");
    expect(await guard.spend("2026-10-17", "usd")).toMatchObject({ committedCents: 1_250 });

    // The retry asks Stripe: still processing, still pending (and the pay is replayed, not made again).
    expect(await run(invoiceFlow, input, request)).toMatchObject({ kind: "unknown" });
    expect(await guard.get("usage", input.key)).toMatchObject({ state: "pending" });

    // The debit settles; the next retry finds the invoice paid and records it done.
    emulator.clock.advance(2 * 60_000);
    expect(await run(invoiceFlow, input, request)).toMatchObject({ kind: "done" });
    expect(await guard.get("usage", input.key)).toMatchObject({ state: "done" });
    expect(emulator.ledger.invoices(cus).map((i) => [i.status, i.amount_paid])).toEqual([["paid", 1_250]]);
    expect(emulator.ledger.charges(cus).map((c) => [c.status, c.amount])).toEqual([["succeeded", 1_250]]);
  });
});

describe("meter-event flow", () => {
  it("sends one event with a stable identifier of at most 100 characters; Stripe's duplicate-identifier 400 is already recorded", async () => {
    const { id: cus } = await customer();
    const meter = await stripe.billing.meters.create({ display_name: "calls", event_name: `calls_${cus}`, default_aggregation: { formula: "sum" } });
    const now = Math.floor(emulator.clock.now() / 1000);
    const request: MeterEventRequest = { eventName: meter.event_name, stripeCustomerId: cus, value: 42, timestamp: now - 30 };
    const input = { scope: "meter-usage-with-a-rather-long-scope-name", key: { usageId: `u-${cus}` } };
    const key = stableKey(input.key, { scope: input.scope });
    expect(key.length).toBeGreaterThan(100);
    const identifier = meterIdentifier(key);
    expect(identifier.length).toBeLessThanOrEqual(100);
    expect(await run(meterEventFlow, input, request)).toMatchObject({ kind: "done", objectId: identifier });
    // Another record store (a lost database, a second deployment) sends the same event: Stripe refuses it as a duplicate.
    const other = await Guard.open({ inMemory: true, clock: emulator.clock });
    try {
      const again = await other.run({ ...input, flow: "meter-event", payload: { ...request } }, (context) =>
        meterEventFlow.execute(stripe, request, flowContext(context, emulator.clock.now())), { classify: (e) => meterEventFlow.classify(e, request, key) });
      expect(again).toMatchObject({ kind: "done", objectId: identifier });
    } finally {
      await other.close();
    }
    const summaries = await stripe.billing.meters.listEventSummaries(meter.id, { customer: cus, start_time: now - 3_600, end_time: now + 60 });
    expect(summaries.data[0]?.aggregated_value).toBe(42);
  });

  it("refuses timestamps Stripe would refuse, and a pending event past the identifier window is unverifiable, never re-sent", async () => {
    const { id: cus } = await customer();
    const now = Math.floor(emulator.clock.now() / 1000);
    const base: MeterEventRequest = { eventName: `late_${cus}`, stripeCustomerId: cus, value: 1, timestamp: now };
    expect(meterEventFlow.check?.({ ...base, timestamp: now - 36 * 86_400 }, emulator.clock.now())).toMatch(/35 days/);
    expect(meterEventFlow.check?.({ ...base, timestamp: now + 600 }, emulator.clock.now())).toMatch(/5 minutes/);
    expect(meterEventFlow.check?.({ ...base, identifier: "x".repeat(101) }, emulator.clock.now())).toMatch(/identifier/);
    const input = { scope: "meter", key: { usageId: `late-${cus}` } };
    emulator.faults.inject({ path: "/v1/billing/meter_events", times: 1, action: "commitThenHang" });
    expect(await run(meterEventFlow, input, base)).toMatchObject({ kind: "unknown" });
    emulator.clock.advance(25 * hour);
    const later = await run(meterEventFlow, input, base);
    expect(later).toMatchObject({ kind: "invalid", reason: "MeterEventUnverifiable", detail: expect.stringMatching(/listEventSummaries/) });
    expect(emulator.ledger.meterEvents().filter((e) => e.payload["stripe_customer_id"] === cus)).toHaveLength(1);
  });
});

describe("charge flow", () => {
  const chargeFor = (cus: string, key: string): ChargeRequest => ({ amount: 800, currency: "usd", customer: cus, metadata: { idempotency_key: key } });

  it("charges the customer's default source once; past the key window a charge Stripe made is found by metadata", async () => {
    const { id: cus } = await customer();
    const input = { scope: "legacy", key: { customerId: cus, day: "2026-10-14" }, spend: { period: "2026-10", currency: "usd", amount: 800 } };
    const key = stableKey(input.key, { scope: input.scope });
    emulator.faults.inject({ path: "/v1/charges", method: "POST", times: 1, action: "commitThenHang" });
    expect(await run(chargeFlow, input, chargeFor(cus, key))).toMatchObject({ kind: "unknown" });
    emulator.clock.advance(25 * hour);
    const outcome = await run(chargeFlow, input, chargeFor(cus, key));
    expect(outcome).toMatchObject({ kind: "done", objectId: expect.stringMatching(/^ch_/) });
    expect(emulator.ledger.charges(cus).map((c) => c.status)).toEqual(["succeeded"]);
  });

  it("records a declined charge with its id", async () => {
    const { id: cus } = await customer("pm_card_chargeDeclined");
    const input = { scope: "legacy", key: { customerId: cus, day: "2026-10-15" }, spend: { period: "2026-10", currency: "usd", amount: 800 } };
    const outcome = await run(chargeFlow, input, chargeFor(cus, stableKey(input.key, { scope: input.scope })));
    expect(outcome).toMatchObject({ kind: "declined" });
    const [failed] = emulator.ledger.charges(cus);
    expect(await guard.get("legacy", input.key)).toMatchObject({ state: "declined", objectId: failed?.id });
  });
});

describe("reconcile (every flow)", () => {
  it("finishes a stale invoice from its recovery points, reports a stale meter event past the window as unverifiable, and a dry run changes nothing", async () => {
    const { id: cus } = await customer();
    const invoiceInput = { scope: "recon", key: { usageId: `inv-${cus}` }, spend: { period: "2026-11-01", currency: "usd", amount: 1_250 } };
    emulator.faults.inject({ path: /\/pay$/, times: 1, action: "serverError", saved: false });
    expect(await run(invoiceFlow, invoiceInput, { customer: cus, currency: "usd", items: [{ amount: 1_000 }, { amount: 250 }] })).toMatchObject({ kind: "unknown" });
    const meterInput = { scope: "recon", key: { usageId: `mev-${cus}` } };
    emulator.faults.inject({ path: "/v1/billing/meter_events", times: 1, action: "commitThenHang" });
    const at = Math.floor(emulator.clock.now() / 1000);
    expect(await run(meterEventFlow, meterInput, { eventName: `recon_${cus}`, stripeCustomerId: cus, value: 3, timestamp: at })).toMatchObject({ kind: "unknown" });

    const dry = await reconcile({ guard, stripe: access, dryRun: true, limit: 1_000 });
    const mine = (report: typeof dry) => report.outcomes.filter((o) => String(o.key.usageId).endsWith(cus));
    expect(mine(dry).map((o) => o.action)).toEqual(["would-rerun", "would-rerun"]);
    expect(emulator.ledger.invoices(cus)[0]?.status).toBe("open");

    emulator.clock.advance(25 * hour);
    const report = await reconcile({ guard, stripe: access, limit: 1_000 });
    expect(mine(report).map((o) => [o.flow, o.action])).toEqual([["invoice", "completed"], ["meter-event", "unverifiable"]]);
    expect(emulator.ledger.invoices(cus).map((i) => [i.status, i.amount_paid])).toEqual([["paid", 1_250]]);
    expect(emulator.ledger.meterEvents().filter((e) => e.payload["stripe_customer_id"] === cus)).toHaveLength(1);
    expect(await guard.get("recon", meterInput.key)).toMatchObject({ state: "pending" });
  });
});
