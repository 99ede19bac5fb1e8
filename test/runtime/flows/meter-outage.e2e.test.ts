// Issue 30, suspect 8a, settled and fixed: a meter event whose every delivery during a Stripe outage waited (the
// breaker open: nothing sent) was dead-lettered MeterEventUnverifiable once the outage passed 24 h: the guard counted
// each claim as an attempt, waits included, and the meter flow reads "past the window and attempt > 1" as "may have
// been sent". A wait that sends nothing on an untouched record now leaves no record (guarded-run.ts), so after the
// outage the event is sent once and recorded done.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flowContext } from "../../../runtime/flows/flow-adapter.js";
import { meterEventFlow, type MeterEventRequest } from "../../../runtime/flows/meter-event-flow.js";
import { unobservedStripeCall } from "../../../runtime/stripe/stripe-call.js";
import { runGuarded } from "../../../runtime/guard/guarded-run.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { CircuitBreaker } from "../../../runtime/resilience/circuit-breaker.js";
import { governedStripeCall } from "../../../runtime/resilience/governed-stripe-call.js";
import { RateGovernor } from "../../../runtime/resilience/rate-governor.js";
import { createStripeClient } from "../../../runtime/stripe/client.js";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

const clock = new AdjustableClock();
let stripe: StripeEmulator;
let guard: Guard;

beforeAll(async () => {
  stripe = await startStripeEmulator({ clock });
  guard = await Guard.open({ inMemory: true, clock });
});
afterAll(async () => {
  await guard?.close();
  await stripe?.stop();
});

describe("a meter event through a 24 h Stripe outage (issue 30, suspect 8a)", () => {
  it("after 24 h of waits that sent nothing, the event is sent once when Stripe is back, never dead-lettered unverifiable", async () => {
    const admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
    const customer = await admin.customers.create({ name: "outage" });
    const meter = await admin.billing.meters.create({ display_name: "calls", event_name: `calls_${customer.id}`, default_aggregation: { formula: "sum" } });
    const client = createStripeClient({ apiKey: "rk_test_sandbox", apiBase: stripe.apiBase, timeoutMs: 2_000, maxNetworkRetries: 0 });
    const governor = new RateGovernor({ ceilingPerSecond: 50 });
    let down = true;
    const breaker = new CircuitBreaker({ dependency: "stripe", probe: async () => {
        if (down) throw new Error("still down");
      }, failureThreshold: 1, firstProbeDelayMs: 20, maxProbeDelayMs: 20 });
    const request: MeterEventRequest = { eventName: meter.event_name, stripeCustomerId: customer.id, value: 2, timestamp: Math.floor(clock.now() / 1000) };
    const deliver = () =>
      runGuarded(
        guard,
        { scope: "meter", key: { usageId: `outage-${customer.id}` }, payload: request as unknown as Record<string, unknown>, flow: "meter-event" },
        (context) => {
          const call = governedStripeCall(unobservedStripeCall, { governor, breaker, now: () => performance.now(), callWorstCaseMs: 500 }, undefined);
          return meterEventFlow.execute(client, request, flowContext(context, clock.now(), undefined, call));
        },
        { classify: (error) => meterEventFlow.classify(error, request, `outage-${customer.id}`), now: () => clock.now() },
      );
    try {
      // The outage: Stripe's breaker is open, so every delivery waits without sending; the queue redelivers hourly.
      breaker.failed("Stripe answers 503");
      for (let hour = 0; hour < 24; hour += 1, clock.advance(3_600_000)) {
        expect(await deliver()).toMatchObject({ kind: "unknown", fault: { dependency: "stripe" } });
      }
      // Nothing was ever sent, so nothing is recorded: no attempt to count, no age past the window.
      expect(await guard.get("meter", { usageId: `outage-${customer.id}` })).toBeUndefined();
      expect(await deliver()).toMatchObject({ kind: "unknown", fault: { dependency: "stripe" } });
      down = false;
      await expect.poll(() => breaker.state).toBe("closed");
      expect(await deliver()).toMatchObject({ kind: "done" });
      expect(await deliver()).toMatchObject({ kind: "already-done" });
      expect(stripe.ledger.meterEvents().filter((event) => event.event_name === meter.event_name)).toHaveLength(1);
    } finally {
      breaker.close();
      await governor.close();
    }
  });
});
