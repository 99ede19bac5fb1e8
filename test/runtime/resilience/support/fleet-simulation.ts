// A fleet of governors against the sandbox's Stripe rate limiter, on fake timers: each replica runs `concurrency`
// workers that take events from one backlog and call "Stripe" through the governor (a 429 waits for the next turn,
// as governed-stripe-call.ts does), each call answered after `latencyMs`. Deterministic, so a unit test can hold the
// governor to the figures (at most 5% 429s, at least 90% of the budget) without a clock in the assertion.
import { vi } from "vitest";
import { memoryFleet } from "../../../../runtime/resilience/memory-fleet-share.js";
import { RateGovernor } from "../../../../runtime/resilience/rate-governor.js";
import { StripeRateLimiter, type StripeRateLimit } from "../../../../sandbox/stripe/rate-limit.js";

export interface FleetSimulation {
  replicas: number;
  limit: StripeRateLimit;
  concurrency: number;
  latencyMs: number;
  events: number;
  /** Share the budget (an in-memory fleet, as PostgreSQL shares it); false: each replica alone. */
  shared?: boolean;
  ceilingPerSecond?: number;
  operation?: string;
  /** Events drained first with no limit (the fleet busy before the budget tightens): slow start grown past it. */
  warmUpEvents?: number;
}

export interface FleetOutcome {
  admitted: number;
  throttled: number;
  drainMs: number;
  /** Admitted, 429 per second. */
  timeline: [number, number][];
}

/** Runs under vi.useFakeTimers (performance and Date faked): the caller advances nothing, this does. */
export async function simulateFleet(sim: FleetSimulation): Promise<FleetOutcome> {
  const operation = sim.operation ?? "payment_intents.create";
  let limiter = new StripeRateLimiter({});
  const fleet = memoryFleet({ ...(sim.ceilingPerSecond === undefined ? {} : { ceilingPerSecond: sim.ceilingPerSecond }) });
  const governors: RateGovernor[] = [];
  for (let i = 0; i < sim.replicas; i += 1) {
    // Replicas start at their own phase, as processes do.
    await vi.advanceTimersByTimeAsync(Math.floor(1_000 / sim.replicas));
    const governor = new RateGovernor({ ...(sim.shared === false ? {} : { fleet: fleet.member(`replica-${i}`) }), ...(sim.ceilingPerSecond === undefined ? {} : { ceilingPerSecond: sim.ceilingPerSecond }) });
    // As a consumer starts: one sync before it takes messages.
    await governor.syncNow();
    governors.push(governor);
  }
  const timeline: [number, number][] = [];
  let left = sim.warmUpEvents ?? 0;
  let done = 0;
  let finishedAt = Infinity;
  const call = async (governor: RateGovernor) => {
    for (;;) {
      const sentAt = await governor.acquire(operation);
      const answer = limiter.admit("POST", "/v1/payment_intents");
      if ("refused" in answer) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        governor.answered(operation, answer.refused, sentAt);
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, sim.latencyMs));
      answer.release();
      governor.answered(operation, undefined, sentAt);
      return;
    }
  };
  const worker = async (governor: RateGovernor) => {
    while (left > 0) {
      left -= 1;
      await call(governor);
      done += 1;
      if (done === sim.events) finishedAt = performance.now();
    }
  };
  if (left > 0) {
    const warming = governors.flatMap((governor) => Array.from({ length: sim.concurrency }, () => worker(governor)));
    while (done < (sim.warmUpEvents ?? 0)) await vi.advanceTimersByTimeAsync(100);
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all(warming);
  }
  limiter = new StripeRateLimiter(sim.limit);
  left = sim.events;
  done = 0;
  const started = performance.now();
  const workers = governors.flatMap((governor) => Array.from({ length: sim.concurrency }, () => worker(governor)));
  let last = { ...limiter.stats };
  while (done < sim.events) {
    await vi.advanceTimersByTimeAsync(1_000);
    timeline.push([limiter.stats.admitted - last.admitted, limiter.stats.throttled - last.throttled]);
    last = { ...limiter.stats };
  }
  const drainMs = finishedAt - started;
  await Promise.all(workers);
  await Promise.all(governors.map((governor) => governor.close()));
  return { admitted: limiter.stats.admitted, throttled: limiter.stats.throttled, drainMs, timeline };
}
