// Issue 41, defect 4: the reconciler starved. It takes the oldest pending records first, and records it can never
// settle (a meter event past Stripe's identifier window) stayed pending and kept their place: once `--limit` of them
// existed, every run examined the same ones, and a newer pending billing was never reached. Now such a record moves
// into a state of its own (`unsettleable`: kept, its reservation still counted) that an operator lists and resolves
// with a reason. The real SDK against the sandbox's Stripe, the guard on PGlite, one adjustable clock.
import { PGlite } from "@electric-sql/pglite";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meterEventFlow, type MeterEventRequest } from "../../../runtime/flows/meter-event-flow.js";
import { paymentIntentFlow } from "../../../runtime/flows/payment-intent-flow.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { reconcile } from "../../../runtime/operator/reconcile.js";
import { stripeAccess, type StripeAccess } from "../../../runtime/stripe/stripe-access.js";
import { EnvironmentKeyProvider } from "../../../runtime/stripe/vault/environment-key-provider.js";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { meteredCustomer } from "../support/metered.js";

const clock = new AdjustableClock();
let db: PGlite;
let guard: Guard;
let emulator: StripeEmulator;
let admin: Stripe;
let access: StripeAccess;

beforeAll(async () => {
  emulator = await startStripeEmulator({ clock });
  admin = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
  access = stripeAccess({ keys: new EnvironmentKeyProvider({ apiKey: "rk_test_sandbox" }), apiBase: emulator.apiBase, timeoutMs: 5_000, maxNetworkRetries: 0 });
  db = await PGlite.create();
  guard = await Guard.open({ pglite: db, clock, leaseMs: 30_000, periodCapCents: 100_000 });
});
afterAll(async () => {
  await guard?.close();
  await db?.close();
  await emulator?.stop();
});

/** A meter event a consumer claimed and then lost the answer of: pending, released, its spend reserved. */
async function strandedMeterEvent(usageId: string, request: MeterEventRequest): Promise<void> {
  const outcome = await guard.run(
    { scope: "meter", key: { usageId }, payload: request as unknown as Record<string, unknown>, spend: { period: "2026-10", currency: "usd", amount: 500 }, flow: "meter-event" },
    async () => {
      throw new Error("the answer was lost");
    },
  );
  expect(outcome.kind).toBe("unknown");
}

describe("records the reconciler cannot settle move out of its way (issue 41, defect 4)", () => {
  it("a meter event past the identifier window is held as unsettleable, the newer pending one is reached, an operator resolves the held one", async () => {
    const { customer, meter } = await meteredCustomer(admin);
    const at = () => Math.floor(clock.now() / 1000);
    await strandedMeterEvent("old", { eventName: meter.event_name, stripeCustomerId: customer.id, value: 2, timestamp: at() });
    clock.advance(25 * 3_600_000);
    await strandedMeterEvent("new", { eventName: meter.event_name, stripeCustomerId: customer.id, value: 3, timestamp: at() });
    const committedBefore = (await guard.spend("2026-10", "usd")).committedCents;

    const first = await reconcile({ guard, stripe: access, clock, limit: 1, flows: { "meter-event": meterEventFlow as never } });
    expect(first).toMatchObject({ examined: 1, unverifiable: 1, held: 1 });
    const second = await reconcile({ guard, stripe: access, clock, limit: 1, flows: { "meter-event": meterEventFlow as never } });
    expect(second).toMatchObject({ examined: 1, completed: 1 });
    expect((await guard.get("meter", { usageId: "new" }))?.state).toBe("done");

    // Kept, not deleted; its reservation still counted until an operator decides.
    const held = await guard.unsettleable();
    expect(held.map((record) => record.key)).toEqual([{ usageId: "old" }]);
    expect(held[0]?.declineReason).toMatch(/identifier window/);
    expect((await guard.spend("2026-10", "usd")).committedCents).toBe(committedBefore);
    // The reconciler no longer examines it (a redelivery meets it held: declined, nothing billed).
    expect((await reconcile({ guard, stripe: access, clock, flows: { "meter-event": meterEventFlow as never } })).examined).toBe(0);

    await expect(guard.resolveUnsettleable("meter", { usageId: "old" }, { charged: false, reason: "" })).rejects.toThrow(/needs a reason/);
    await guard.resolveUnsettleable("meter", { usageId: "old" }, { charged: false, reason: "the meter's summary shows 3, not 5: never recorded" });
    expect(await guard.unsettleable()).toEqual([]);
    expect(await guard.get("meter", { usageId: "old" })).toMatchObject({ state: "declined", declineReason: expect.stringContaining("never recorded") });
    expect((await guard.spend("2026-10", "usd")).committedCents).toBe(committedBefore - 500);
  });

  it("a refused key (403) past the key window is not a verdict: the record stays pending, and bills once the key is fixed", async () => {
    // Found by the money model: an invoice billing held unsettleable that Stripe never billed, because the reconciler
    // ran while the key lacked the flow's permission. The key is the run's problem, not the billing's.
    const customer = await admin.customers.create({ name: "key-refused", invoice_settings: { default_payment_method: "pm_card_visa" } });
    const key = "reconcile-key-refused";
    const request = { amount: 4_200, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { idempotency_key: key } };
    const stranded = await guard.run(
      { scope: "pi", key: { usageId: key }, payload: request, spend: { period: "2026-11", currency: "usd", amount: 4_200 }, flow: "payment-intent", idempotencyKey: key },
      async () => {
        throw new Error("the answer was lost");
      },
    );
    expect(stranded.kind).toBe("unknown");
    clock.advance(25 * 3_600_000);
    const flows = { "payment-intent": paymentIntentFlow as never };

    const refused = emulator.faults.inject({ action: "missingPermission", path: "/v1/payment_intents" });
    let report;
    try {
      report = await reconcile({ guard, stripe: access, clock, flow: "payment-intent", flows });
    } finally {
      refused.remove();
    }
    expect(refused.hits).toBeGreaterThan(0);
    expect(report).toMatchObject({ examined: 1, refused: 1, held: 0 });
    expect(report.outcomes[0]?.detail).toMatch(/StripeConfigurationError/);
    expect((await guard.get("pi", { usageId: key }))?.state).toBe("pending");
    expect(await guard.unsettleable()).toEqual([]);

    // The key fixed: the next run bills it, once, at Stripe.
    expect(await reconcile({ guard, stripe: access, clock, flow: "payment-intent", flows })).toMatchObject({ examined: 1, completed: 1, held: 0 });
    expect((await guard.get("pi", { usageId: key }))?.state).toBe("done");
    expect(emulator.ledger.paymentIntents(customer.id).filter((intent) => intent.metadata?.idempotency_key === key)).toHaveLength(1);
  });
});
