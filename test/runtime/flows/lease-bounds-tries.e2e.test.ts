// A run's tries end with its lease, whatever clock the guard keeps (issue 41, found by the money model in CI: a
// PaymentIntent charged twice). The consumer's governed calls answer a 429 by taking the next token and trying again
// within the lease; the lease's last start was computed as the governor's now plus `leaseUntil - Date.now()`, mixing
// the guard's clock with the system's. On a clock ahead of the system's (the model's virtual clock after a day
// passed; any replica given its own `clock`), the deadline lay days away and a run throttled on every try went on
// past its lease until Stripe answered: after the key window closed, under a key Stripe had pruned, beside the
// redelivery that had taken the record over. Checked at the Stripe emulator, the guard on PGlite, one virtual clock.
import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runFlowGuarded } from "../../../runtime/flows/guarded-flow-run.js";
import { paymentIntentFlow } from "../../../runtime/flows/payment-intent-flow.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { CircuitBreaker } from "../../../runtime/resilience/circuit-breaker.js";
import { RateGovernor } from "../../../runtime/resilience/rate-governor.js";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { sandboxFlowWay } from "../support/sandbox-flow-way.js";

const leaseMs = 2_000;
const clock = new AdjustableClock();
let emulator: StripeEmulator;
let guard: Guard;

beforeAll(async () => {
  emulator = await startStripeEmulator({ clock });
  guard = await Guard.open({ inMemory: true, clock, leaseMs, periodCapCents: 1_000_000 });
});
afterAll(async () => {
  await guard?.close();
  await emulator?.stop();
});

it("a guard on a clock 35 days ahead of the system's: throttled on every try, the run ends with its lease and charges nothing after it", async () => {
  clock.advance(35 * 86_400_000);
  const admin = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
  const customer = (await admin.customers.create({ name: "lease-bound" })).id;
  const key = "lease-bound-1";
  const request = { amount: 1_000, currency: "usd", customer, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { idempotency_key: key } };
  // The governor as a replica runs it, with room to spare: a token is at hand for every try.
  const governor = new RateGovernor({ ceilingPerSecond: 1_000 });
  const breaker = new CircuitBreaker({ dependency: "stripe", probe: async () => {} });
  const way = sandboxFlowWay(guard, emulator, clock, { governance: { governor, breaker, now: () => performance.now(), callWorstCaseMs: 500 } });
  const record = { scope: "lease-bound", key: { usage: key }, payload: request, spend: { period: "2027-01", currency: "usd", amount: 1_000 }, flow: "payment-intent", idempotencyKey: key, owner: "replica" };
  const limited = emulator.faults.inject({ action: "rateLimit", method: "POST", path: "/v1/payment_intents", when: (r) => r.idempotencyKey === key });
  // Stripe takes calls again well after the lease lapsed (the fault heals): a run still trying then would charge.
  const heals = setTimeout(() => limited.remove(), leaseMs * 3);
  try {
    const outcome = await runFlowGuarded(paymentIntentFlow as never, record, way);
    expect(limited.hits).toBeGreaterThan(0);
    // Ended by the lease (its last start, or its lapse), not by Stripe answering once the fault healed.
    expect(outcome.kind).toBe("unknown");
    expect(emulator.ledger.paymentIntents(customer)).toHaveLength(0);
    // Every try was refused before Stripe executed it, on the first attempt: the record is forgotten, its spend given back.
    expect(await guard.get("lease-bound", { usage: key })).toBeUndefined();
    expect((await guard.spend("2027-01", "usd")).committedCents).toBe(0);
  } finally {
    clearTimeout(heals);
    limited.remove();
    breaker.close();
    await governor.close();
  }
}, 30_000);
