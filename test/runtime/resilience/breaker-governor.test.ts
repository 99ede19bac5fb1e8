// The governor's AIMD and limiters apart, the breaker's open-probe-close, the intake pause's reasons.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../../runtime/resilience/circuit-breaker.js";
import { DependencyUnavailableError } from "../../../runtime/resilience/dependency-fault.js";
import { IntakePause } from "../../../runtime/resilience/intake-pause.js";
import { initialRateState, nextRate } from "../../../runtime/resilience/aimd.js";
import { accountLimiter, RateGovernor } from "../../../runtime/resilience/rate-governor.js";

describe("RateGovernor", () => {
  it("unbounded until a 429; then 90% of what got through, and callers wait in turn", async () => {
    const governor = new RateGovernor({ periodMs: 60_000 });
    try {
      for (let i = 0; i < 20; i += 1) {
        await governor.acquire("payment_intents.create");
        governor.answered("payment_intents.create");
      }
      expect(governor.rateOf(accountLimiter)).toBeUndefined();
      governor.answered("payment_intents.create", "global-rate");
      // 20 admitted over the (60 s) period: 0.33/s x 0.9.
      expect(governor.rateOf(accountLimiter)).toBeCloseTo((20 / 60) * 0.9, 5);
      expect(governor.rateOf("endpoint:payment_intents.create")).toBeUndefined();
    } finally {
      await governor.close();
    }
  });

  it("an endpoint's 429 slows that endpoint only; a ceiling bounds the account from the start", async () => {
    const governor = new RateGovernor({ ceilingPerSecond: 50, periodMs: 1_000 });
    try {
      expect(governor.rateOf(accountLimiter)).toBe(50);
      await governor.acquire("payment_intents.list");
      expect(governor.rateOf(accountLimiter)).toBe(50);
      governor.answered("payment_intents.list", "endpoint-rate");
      expect(governor.rateOf("endpoint:payment_intents.list")).toBeGreaterThan(0);
      expect(governor.rateOf(accountLimiter)).toBe(50);
      expect(governor.rateOf("endpoint:payment_intents.create")).toBeUndefined();
    } finally {
      await governor.close();
    }
  });

  it("paces at its rate, and refuses a wait past the deadline as throttled (nothing sent)", async () => {
    const governor = new RateGovernor({ ceilingPerSecond: 20 });
    try {
      const started = performance.now();
      for (let i = 0; i < 12; i += 1) await governor.acquire("charges.create");
      // 20/s with a burst of 2: 12 calls take at least 0.45 s.
      expect(performance.now() - started).toBeGreaterThanOrEqual(450);
      const error = await governor.acquire("charges.create", { deadline: performance.now() - 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect((error as DependencyUnavailableError).fault).toMatchObject({ dependency: "stripe", cause: "throttled" });
    } finally {
      await governor.close();
    }
  });

  it("the period's step: a light 429 period cuts 10%, a heavy one to 95% of what got through; back halfway to the knee, then 2%; ceiling holds", () => {
    const at = (now: number, ceiling?: number) => ({ now, periodMs: 1_000, ceiling });
    // The first burst after a start: 80/s tried, 25/s let through. Straight to 95% of the budget, not 90% of 80.
    const heavy = nextRate(initialRateState, { admittedPerSecond: 25, throttledPerSecond: 55, saturated: true }, at(10_000));
    expect(heavy).toMatchObject({ rate: 23.75, knee: 25, cutAt: 10_000 });
    // More 429s within two periods answer requests sent before the cut: no second cut.
    expect(nextRate(heavy, { admittedPerSecond: 24, throttledPerSecond: 3, saturated: true }, at(11_500))).toBe(heavy);
    const light = nextRate({ ...heavy, rate: 30 }, { admittedPerSecond: 29, throttledPerSecond: 1, saturated: true }, at(13_000));
    expect(light.rate).toBeCloseTo(27);
    // Saturated, no 429: halfway back to the knee (30), then 2% a period past it.
    const back = nextRate(light, { admittedPerSecond: 27, throttledPerSecond: 0, saturated: true }, at(14_000));
    expect(back.rate).toBeCloseTo(28.5);
    const past = nextRate({ ...back, rate: 30 }, { admittedPerSecond: 30, throttledPerSecond: 0, saturated: true }, at(15_000));
    expect(past.rate).toBeCloseTo(30.6);
    // The longer no 429 comes, the faster it probes: 5% after 5 quiet periods, 10% after 10.
    expect(nextRate({ ...past, changedAt: 0 }, { admittedPerSecond: 30, throttledPerSecond: 0, saturated: true }, at(18_500)).rate).toBeCloseTo(30.6 * 1.05);
    expect(nextRate({ ...past, changedAt: 0 }, { admittedPerSecond: 30, throttledPerSecond: 0, saturated: true }, at(23_500)).rate).toBeCloseTo(30.6 * 1.1);
    // Not saturated: demand is the bound, the rate stays. A ceiling caps; unbounded stays unbounded without one.
    expect(nextRate(past, { admittedPerSecond: 3, throttledPerSecond: 0, saturated: false }, at(16_000)).rate).toBeCloseTo(30.6);
    expect(nextRate({ ...past, rate: 49.5 }, { admittedPerSecond: 49, throttledPerSecond: 0, saturated: true }, at(17_000, 50)).rate).toBe(50);
    expect(nextRate(initialRateState, { admittedPerSecond: 80, throttledPerSecond: 0, saturated: false }, at(1)).rate).toBeUndefined();
    expect(nextRate(initialRateState, { admittedPerSecond: 80, throttledPerSecond: 0, saturated: false }, at(1, 25)).rate).toBe(25);
  });
});

describe("CircuitBreaker", () => {
  it("opens after 5 outage failures in a row, fails fast, probes on a backoff, closes on the first good probe", async () => {
    const changes: string[] = [];
    let up = false;
    let probes = 0;
    const breaker = new CircuitBreaker({
      dependency: "stripe",
      firstProbeDelayMs: 40,
      maxProbeDelayMs: 80,
      probe: async () => {
        probes += 1;
        if (!up) throw new Error("still down");
      },
      onChange: (state) => changes.push(state),
    });
    try {
      for (let i = 0; i < 4; i += 1) breaker.failed("503");
      breaker.succeeded();
      for (let i = 0; i < 4; i += 1) breaker.failed("503");
      expect(breaker.state).toBe("closed");
      breaker.failed("503");
      expect(breaker.state).toBe("open");
      expect(() => breaker.check()).toThrow(DependencyUnavailableError);
      await sleep(300);
      expect(probes).toBeGreaterThanOrEqual(2);
      expect(probes).toBeLessThanOrEqual(8);
      up = true;
      await sleep(200);
      expect(breaker.state).toBe("closed");
      expect(changes).toEqual(["open", "closed"]);
      expect(() => breaker.check()).not.toThrow();
    } finally {
      breaker.close();
    }
  });
});

describe("IntakePause", () => {
  it("pauses on the first reason and resumes only when the last one clears", async () => {
    const calls: string[] = [];
    const pause = new IntakePause({ pause: async () => void calls.push("pause"), resume: () => void calls.push("resume") });
    await pause.hold("stripe");
    await pause.hold("database");
    pause.release("stripe");
    await sleep(0);
    expect(calls).toEqual(["pause"]);
    pause.release("database");
    await sleep(0);
    expect(calls).toEqual(["pause", "resume"]);
    expect(pause.paused).toBe(false);
  });
});
