// The reconciler over the default consumer's PaymentIntent billings, against the real Stripe SDK, the sandbox's
// Stripe emulator and a real (embedded) PostgreSQL: one adjustable clock drives the guard's leases, Stripe's 24 h key
// window and the reconciler. (flows.e2e.test.ts runs it over the other flows.)
import { PGlite } from "@electric-sql/pglite";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Guard } from "../../../runtime/guard/guard.js";
import type { GuardRunInput } from "../../../runtime/guard/guarded-run.js";
import { stripeKeyWindowMs } from "../../../runtime/flows/flow-adapter.js";
import { createNoopMeter, ProxyTracerProvider } from "@opentelemetry/api";
import { reconcile } from "../../../runtime/operator/reconcile.js";
import { createBillingTelemetry } from "../../../runtime/telemetry/billing-telemetry.js";
import { stableKey } from "../../../runtime/core/stable-key.js";
import { buildPaymentIntentParams } from "../../../runtime/stripe/payment-intent-params.js";
import { stripeAccess, type StripeAccess } from "../../../runtime/stripe/stripe-access.js";
import { EnvironmentKeyProvider } from "../../../runtime/stripe/vault/environment-key-provider.js";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

const leaseMs = 30_000;
const clock = new AdjustableClock();
let db: PGlite;
let guard: Guard;
let emulator: StripeEmulator;
let stripe: Stripe;
/** The consumer's way to Stripe, which the reconciler takes: the environment's key here, no vault. */
let access: StripeAccess;

beforeAll(async () => {
  emulator = await startStripeEmulator({ clock });
  stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0, timeout: 5_000 });
  access = stripeAccess({ keys: new EnvironmentKeyProvider({ apiKey: "rk_test_sandbox" }), apiBase: emulator.apiBase, timeoutMs: 5_000, maxNetworkRetries: 0 });
  db = await PGlite.create();
  guard = await Guard.open({ pglite: db, clock, leaseMs });
});
afterAll(async () => {
  await guard?.close();
  await db?.close();
  await emulator?.stop();
});

let sequence = 0;
type Stranded = GuardRunInput & { customerId: string; billingPeriod: string; request: Stripe.PaymentIntentCreateParams };

/** A billing claimed by a consumer that then died (or lost the answer): pending, its lease released. */
async function strandedBilling(options: { paymentMethod?: string; stripeCommitted: boolean; stripeCustomerId?: string }): Promise<Stranded> {
  const stripeCustomerId = options.stripeCustomerId ?? (await stripe.customers.create({ name: `reconcile ${++sequence}` })).id;
  const event = {
    customerId: `c-${++sequence}-${clock.now()}`,
    stripeCustomerId,
    paymentMethodId: options.paymentMethod ?? "pm_card_visa",
    billingPeriod: "2026-10",
    amountCents: 1000 + sequence,
    currency: "usd",
  };
  const idempotencyKey = stableKey(
    { customerId: event.customerId, billingPeriod: event.billingPeriod, amountCents: event.amountCents, currency: event.currency },
    { scope: "billing" },
  );
  const request = buildPaymentIntentParams(event, idempotencyKey);
  const input: Stranded = {
    scope: "billing",
    flow: "payment-intent",
    key: { customerId: event.customerId, billingPeriod: event.billingPeriod },
    payload: { ...request },
    spend: { period: event.billingPeriod, currency: "usd", amount: event.amountCents },
    idempotencyKey,
    owner: "consumer-that-died",
    customerId: event.customerId,
    billingPeriod: event.billingPeriod,
    request,
  };
  const outcome = await guard.run(input, async () => {
    if (options.stripeCommitted) {
      // Stripe charged (or declined) it; the answer never reached the record.
      await stripe.paymentIntents.create(request, { idempotencyKey }).catch((error: unknown) => {
        if (!(error instanceof Stripe.errors.StripeCardError)) throw error;
      });
    }
    throw new Error("the answer was lost");
  });
  if (outcome.kind !== "unknown") throw new Error(`expected an unknown outcome, got ${outcome.kind}`);
  return input;
}

const intentsOf = (input: Stranded) => emulator.ledger.paymentIntents(input.request.customer as string);
const outcomeOf = (report: Awaited<ReturnType<typeof reconcile>>, input: Stranded) =>
  report.outcomes.find((o) => o.key.customerId === input.customerId);

describe("reconcile", () => {
  it("inside the key window retries with the record's key: Stripe replays a committed charge, or charges a missing one once", async () => {
    const committed = await strandedBilling({ stripeCommitted: true });
    const missing = await strandedBilling({ stripeCommitted: false });
    const report = await reconcile({ guard, stripe: access });
    expect(report).toMatchObject({ dryRun: false, examined: 2, completed: 2, stillUnknown: 0 });
    for (const input of [committed, missing]) {
      const intents = intentsOf(input);
      expect(intents).toHaveLength(1);
      expect(await guard.get("billing", { customerId: input.customerId, billingPeriod: input.billingPeriod })).toMatchObject({ state: "done", objectId: intents[0]?.id });
      expect(outcomeOf(report, input)).toMatchObject({ action: "completed", objectId: intents[0]?.id });
    }
    expect(await guard.periodSpend("2026-10")).toMatchObject({ reservedCents: 0 });
  });

  it("inside the key window, Stripe's 400 under the record's key (no such customer) forgets it: refused, nothing left reserved", async () => {
    const refused = await strandedBilling({ stripeCommitted: false, stripeCustomerId: "cus_missing_reconcile" });
    expect(await guard.periodSpend("2026-10")).toMatchObject({ reservedCents: refused.spend!.amount });
    const report = await reconcile({ guard, stripe: access });
    expect(outcomeOf(report, refused)).toMatchObject({ action: "refused", detail: expect.stringMatching(/^StripeInvalidRequest: .*No such customer/) });
    expect(await guard.get("billing", { customerId: refused.customerId, billingPeriod: refused.billingPeriod })).toBeUndefined();
    expect(await guard.periodSpend("2026-10")).toMatchObject({ reservedCents: 0 });
    expect((await reconcile({ guard, stripe: access })).examined).toBe(0);
  });

  it("takes a telemetry with no SDK behind it (disabled) and reconciles as without one", async () => {
    const missing = await strandedBilling({ stripeCommitted: false });
    const telemetry = createBillingTelemetry({ meterProvider: { getMeter: () => createNoopMeter() }, tracerProvider: new ProxyTracerProvider() });
    expect(telemetry.enabled).toBe(false);
    const report = await reconcile({ guard, stripe: access, telemetry });
    expect(outcomeOf(report, missing)).toMatchObject({ action: "completed", objectId: intentsOf(missing)[0]?.id });
  });

  it("after the key window finds the committed PaymentIntent by customer and metadata instead of charging again", async () => {
    const committed = await strandedBilling({ stripeCommitted: true });
    const missing = await strandedBilling({ stripeCommitted: false });
    clock.advance(stripeKeyWindowMs + 3_600_000);
    const report = await reconcile({ guard, stripe: access });
    expect(report).toMatchObject({ examined: 2, completed: 2, stillUnknown: 0 });
    expect(intentsOf(committed)).toHaveLength(1);
    expect(intentsOf(missing)).toHaveLength(1);
    expect(outcomeOf(report, committed)).toMatchObject({ action: "completed", objectId: intentsOf(committed)[0]?.id });
    expect(outcomeOf(report, missing)).toMatchObject({ action: "completed", objectId: intentsOf(missing)[0]?.id });
    expect(emulator.ledger.duplicateCharges()).toEqual([]);
  });

  it("records declines, from a retry inside the window and from Stripe's record after it, without a second card attempt", async () => {
    const inside = await strandedBilling({ paymentMethod: "pm_card_chargeDeclinedInsufficientFunds", stripeCommitted: false });
    const first = await reconcile({ guard, stripe: access });
    expect(first).toMatchObject({ examined: 1, declined: 1 });
    expect(await guard.get("billing", { customerId: inside.customerId, billingPeriod: inside.billingPeriod })).toMatchObject({
      state: "declined",
      declineReason: expect.stringMatching(/insufficient_funds/),
    });

    const after = await strandedBilling({ paymentMethod: "pm_card_chargeDeclined", stripeCommitted: true });
    clock.advance(stripeKeyWindowMs + 1);
    const second = await reconcile({ guard, stripe: access });
    expect(second).toMatchObject({ examined: 1, declined: 1, completed: 0 });
    expect(intentsOf(after)).toHaveLength(1);
    expect(await guard.get("billing", { customerId: after.customerId, billingPeriod: after.billingPeriod })).toMatchObject({ state: "declined", objectId: intentsOf(after)[0]?.id });
  });

  it("leaves a billing pending when Stripe's answer stays unknown, and the next run finishes it", async () => {
    const input = await strandedBilling({ stripeCommitted: false });
    const conflict = emulator.faults.inject({ action: "conflict", path: "/v1/payment_intents", method: "POST", times: 1 });
    const first = await reconcile({ guard, stripe: access });
    expect(conflict.hits).toBe(1);
    expect(first).toMatchObject({ examined: 1, stillUnknown: 1 });
    expect(outcomeOf(first, input)?.detail).toMatch(/409|idempotency_key_in_use/);
    expect(await guard.get("billing", { customerId: input.customerId, billingPeriod: input.billingPeriod })).toMatchObject({ state: "pending", lockOwner: null });
    const second = await reconcile({ guard, stripe: access });
    expect(second).toMatchObject({ examined: 1, completed: 1 });
    expect(intentsOf(input)).toHaveLength(1);
  });

  it("leaves alone a billing whose consumer still holds a live lease", async () => {
    const customer = await stripe.customers.create({ name: "live lease" });
    const request = { amount: 500, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true };
    let reconciled: Awaited<ReturnType<typeof reconcile>> | undefined;
    // The consumer holds the lease while the reconciler runs.
    await guard.run(
      { scope: "billing", flow: "payment-intent", key: { customerId: `live-${clock.now()}`, billingPeriod: "2026-11" }, payload: request, owner: "busy-consumer" },
      async () => {
        reconciled = await reconcile({ guard, stripe: access });
        return { status: "declined", reason: "test: the consumer's own answer" };
      },
    );
    expect(reconciled?.examined).toBe(0);
    expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(0);
  });

  it("in a dry run only reports: no claim, no charge, no record written", async () => {
    await reconcile({ guard, stripe: access });
    const inside = await strandedBilling({ stripeCommitted: false });
    const before = await guard.get("billing", { customerId: inside.customerId, billingPeriod: inside.billingPeriod });
    const planInside = await reconcile({ guard, stripe: access, dryRun: true });
    expect(planInside).toMatchObject({ dryRun: true, examined: 1 });
    expect(outcomeOf(planInside, inside)).toMatchObject({ action: "would-rerun", detail: expect.stringMatching(/inside the key window/) });
    clock.advance(stripeKeyWindowMs + 1);
    const committed = await strandedBilling({ stripeCommitted: true });
    clock.advance(stripeKeyWindowMs + 1);
    const plan = await reconcile({ guard, stripe: access, dryRun: true });
    expect(plan).toMatchObject({ dryRun: true, examined: 2 });
    expect(plan.outcomes.every((o) => o.action === "would-rerun" && /past the key window/.test(o.detail ?? ""))).toBe(true);
    expect(intentsOf(inside)).toHaveLength(0);
    expect(intentsOf(committed)).toHaveLength(1);
    expect(await guard.get("billing", { customerId: inside.customerId, billingPeriod: inside.billingPeriod })).toEqual(before);
    const done = await reconcile({ guard, stripe: access });
    expect(done).toMatchObject({ examined: 2, completed: 2 });
    expect(intentsOf(inside)).toHaveLength(1);
    expect(emulator.ledger.duplicateCharges()).toEqual([]);
  });
});
