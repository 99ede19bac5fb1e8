// The governor's AIMD and limiters apart, the breaker's open-probe-close, the intake pause's reasons.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../../runtime/resilience/circuit-breaker.js";
import { DependencyUnavailableError } from "../../../runtime/resilience/dependency-fault.js";
import { IntakePause } from "../../../runtime/resilience/intake-pause.js";
import { accountLimiter, nextFleetRate, RateGovernor } from "../../../runtime/resilience/rate-governor.js";

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
      expect(governor.rateOf(accountLimiter)).toBeUndefined(); // made on first use
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

  it("the fleet step: cut 10% on 429s, +2% when saturated, ceiling holds, unbounded stays so without news", () => {
    expect(nextFleetRate(undefined, { throttled: 3, saturated: false, admittedPerSecond: 40 }, undefined)).toBeCloseTo(36);
    expect(nextFleetRate(36, { throttled: 1, saturated: true, admittedPerSecond: 40 }, undefined)).toBeCloseTo(32.4);
    expect(nextFleetRate(36, { throttled: 0, saturated: true, admittedPerSecond: 36 }, undefined)).toBeCloseTo(36.72);
    expect(nextFleetRate(49.5, { throttled: 0, saturated: true, admittedPerSecond: 49 }, 50)).toBe(50);
    expect(nextFleetRate(undefined, { throttled: 0, saturated: false, admittedPerSecond: 80 }, undefined)).toBeUndefined();
    expect(nextFleetRate(undefined, { throttled: 0, saturated: false, admittedPerSecond: 80 }, 25)).toBe(25);
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
