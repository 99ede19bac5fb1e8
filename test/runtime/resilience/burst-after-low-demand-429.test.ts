// Issue 41 (unsettled): a 429 at low demand at the start of a burst, before the fleet learned anything. Three
// replicas of eight callers drain 500 PaymentIntents against the sandbox's token bucket (25/s, burst 25; Stripe
// answers in 50 ms) on a virtual clock, sharing a fleet in memory as PostgreSQL shares it; once as they are, once after
// one request at low demand met a 429 (another system on the account took the bucket a moment), and once with the
// bucket emptied by another system as the burst starts. The goal: the burst drains within 5 s of the time without
// (a review of the whole consumer measured 33.9 s against 19.4 s; the governor's part is held here, the rest of that
// figure, replicas syncing through PostgreSQL and the SDK's own retries, is bench:fleet's).
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { memoryFleet } from "../../../runtime/resilience/memory-fleet-share.js";
import { RateGovernor } from "../../../runtime/resilience/rate-governor.js";
import { StripeRateLimiter } from "../../../sandbox/stripe/rate-limit.js";

const operation = "payment_intents.create";

beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance", "Date"] }));
afterEach(() => void vi.useRealTimers());

/** Virtual seconds for `events` calls by `callers` per governor against the bucket, each 429 retried. */
async function drain(governors: RateGovernor[], bucket: StripeRateLimiter, events: number, callers: number): Promise<number> {
  const start = performance.now();
  let left = events;
  let done = 0;
  const loops = governors.flatMap((governor) =>
    Array.from({ length: callers }, async () => {
      while (left > 0) {
        left -= 1;
        for (;;) {
          const sentAt = await governor.acquire(operation);
          const answer = bucket.admit("POST", "/v1/payment_intents");
          await new Promise((resolve) => setTimeout(resolve, "refused" in answer ? 5 : 50));
          if ("refused" in answer) {
            governor.answered(operation, answer.refused, sentAt);
            continue;
          }
          answer.release();
          governor.answered(operation, undefined, sentAt);
          break;
        }
        done += 1;
      }
    }),
  );
  let finishedAt: number | undefined;
  void Promise.all(loops).then(() => (finishedAt = performance.now()));
  while (finishedAt === undefined && performance.now() - start < 120_000) await vi.advanceTimersByTimeAsync(100);
  expect(done).toBe(events);
  return ((finishedAt ?? Infinity) - start) / 1_000;
}

async function fleetDrain(lowDemand429: boolean, bucketTaken = false): Promise<number> {
  const fleet = memoryFleet();
  const governors = ["a", "b", "c"].map((name) => new RateGovernor({ fleet: fleet.member(name) }));
  try {
    for (const governor of governors) await governor.syncNow();
    const bucket = new StripeRateLimiter({ global: { perSecond: 25, burst: 25 } });
    if (lowDemand429) {
      // One request, nobody waiting, answered 429: the account's bucket was taken by someone else for a moment.
      const first = governors[0] as RateGovernor;
      const sentAt = await first.acquire(operation);
      await vi.advanceTimersByTimeAsync(5);
      first.answered(operation, "global-rate", sentAt);
    }
    if (bucketTaken) {
      // Another system on the account empties the bucket as the burst starts: its first requests meet 429s.
      for (let i = 0; i < 25; i++) {
        const answer = bucket.admit("POST", "/v1/payment_intents");
        if (!("refused" in answer)) answer.release();
      }
    }
    return await drain(governors, bucket, 500, 8);
  } finally {
    await Promise.all(governors.map((governor) => governor.close()));
  }
}

it("a burst after a low-demand 429, or one whose bucket another system took, drains within 5 s of the burst without it", async () => {
  const without = await fleetDrain(false);
  // Measured (virtual seconds): 19.8 without; 19.4 after the 429; 24.4 after it with the bucket taken as the burst
  // starts, 24.0 with the bucket taken alone (refilling it costs 1 s of the budget; slow start the rest).
  for (const [lowDemand429, bucketTaken] of [[true, false], [true, true], [false, true]] as const) {
    const seconds = await fleetDrain(lowDemand429, bucketTaken);
    expect(seconds, `429 ${lowDemand429}, bucket taken ${bucketTaken}: ${seconds} s against ${without} s`).toBeLessThanOrEqual(without + 5);
  }
}, 120_000);
