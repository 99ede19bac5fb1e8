// The proving ground's own waits, scaled like its lock: a generated consumer's guard lease in the harness, and the
// step timer that shows where a contender's wall time goes.
import { describe, expect, it } from "vitest";
import { contenders } from "../../prove/contender/contenders.js";
import { StepTimer } from "../../prove/contender/step-timer.js";
import { harnessDeliveryBudgetMs, harnessLeaseMs, harnessSettings } from "../../prove/run/settings.js";
import { toJson, type ProvingGroundResult } from "../../prove/report/results.js";
import { deliveryBudgetMs } from "../../tuning/index.js";

describe("a generated consumer's lease in the harness", () => {
  const settings = harnessSettings(500);
  const budget = harnessDeliveryBudgetMs(settings);
  // What the consumer would size for itself from its tuning: the production processing time and margin (2 s + 10 s)
  // on the harness's Stripe client.
  const ownLease = deliveryBudgetMs({ stripe: { timeoutMs: settings.stripeTimeoutMs, maxNetworkRetries: settings.stripeMaxNetworkRetries } });

  it.each([
    ["generated-consumer", 1],
    ["generated-consumer-charge", 1],
    ["generated-consumer-meter-event", 1],
    ["generated-consumer-invoice", 4],
  ])("%s gets one scaled delivery budget per Stripe call of its events (%i)", (name, calls) => {
    const contender = contenders().find((each) => each.name === name);
    const leaseMs = contender?.contextFor?.(settings).leaseMs;
    expect(leaseMs).toBe(calls * budget);
    expect(leaseMs).toBe(harnessLeaseMs(settings, calls));
    // Still covers each call's Stripe timeout, the slow-stripe fault's call included.
    expect(leaseMs).toBeGreaterThan(calls * settings.stripeTimeoutMs);
    expect(settings.stripeTimeoutMs).toBeGreaterThan(settings.slowStripeMs);
  });

  it("is about half the lease the consumer would take with production margins on the harness's Stripe timeout", () => {
    expect(ownLease).toBe(22_000);
    expect(harnessLeaseMs(settings, 1)).toBe(10_500);
  });

  it("leaves the broken examples' context alone (their bugs are theirs)", () => {
    for (const contender of contenders().filter((each) => each.kind === "example")) {
      expect(contender.contextFor?.(settings).leaseMs).toBeUndefined();
    }
  });
});

describe("the harness's own waits", () => {
  const settings = harnessSettings(500);

  it("settles a phase after two quiet polls of the queue, not a second", () => {
    expect(settings.quietMs).toBe(500);
  });

  it("waits one lock for a killed replica's close at the fleet's stop, not 15 s (a dead process frees its sockets late, and nothing of it runs)", () => {
    expect(settings.killCloseBoundMs).toBe(settings.lockDurationMs);
  });
});

describe("StepTimer", () => {
  it("adds up each step from the previous mark, and repeats of a step together", () => {
    let now = 1_000;
    const timer = new StepTimer(() => now);
    now += 2_500;
    timer.mark("setup");
    now += 10_000;
    timer.mark("drain");
    now += 500;
    timer.mark("drain");
    now += 1_250;
    timer.mark("judge");
    expect(timer.times).toEqual({ setup: 2_500, drain: 10_500, judge: 1_250 });
    expect(timer.describe()).toBe("setup 2.5 s, drain 10.5 s, judge 1.3 s");
  });

  it("reaches the JSON as each contender's timing", () => {
    const metrics = {
      events: 1, deliveries: 1, paymentIntents: 1, charges: 1, duplicateCharges: 0, eventsCharged: 1, eventsDeclined: 0, lostBillings: 0,
      unsettledBillings: 0, overCapCents: 0, repeatedDeclines: 0, deadLettered: {}, malformedEvents: 0, malformedDeadLettered: 0,
      malformedCharged: 0, unattributedCharges: 0, validDeadLettered: 0, wallMs: 12_000,
    };
    const result: ProvingGroundResult = {
      seed: 7, events: 1, flowEvents: 1, replicas: 1, faults: [], wallMs: 13_000,
      contenders: [{ name: "generated-consumer", kind: "generated", flow: "payment-intent", metrics, verdict: "PASS", timing: { setup: 1_000, drain: 12_000 } }],
    };
    expect(toJson(result).contenders[0]?.timing).toEqual({ setup: 1_000, drain: 12_000 });
  });
});
