// The one formula for how long a message may be held, as every room uses it: the queue's tuning covers it, the
// replica bounds' grace period covers it, and the check the runtime starts with passes exactly when it is covered.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coverageProblems, holdProblems, messageHoldMs, replicaBounds, TuningError, tuneQueue, type ConsumerConcurrency } from "../../tuning/index.js";

// Pulumi.dev.yaml's usage-billing queue and the consumer app the dev stack deploys for it.
const devBudget = { stripe: { timeoutMs: 30_000, maxNetworkRetries: 2, threeDsP99Ms: 0 }, processingMs: 2000, maxDeliveryCount: 10 };
const devConsumer: ConsumerConcurrency = { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 2 };
const lockOf = (tuning: ReturnType<typeof tuneQueue>) => ({ lockDurationMs: tuning.lockDurationMs, maxAutoLockRenewalDurationInMs: tuning.consumer.maxAutoLockRenewalDurationInMs });

describe("messageHoldMs", () => {
  it("is the delivery budget per Stripe call, doubled when a message may wait for a Stripe slot", () => {
    expect(messageHoldMs(103_500, { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 4 })).toBe(103_500);
    expect(messageHoldMs(103_500, devConsumer)).toBe(207_000);
    expect(messageHoldMs(10_000, { maxConcurrentCalls: 2, maxConcurrentStripeCalls: 1, stripeCallsPerMessage: 3 })).toBe(60_000);
    expect(messageHoldMs(10_000)).toBe(10_000);
  });
});

describe("the dev stack's consumer (4 messages in flight, 2 Stripe slots)", () => {
  it("was refused with a queue tuned for one message at a time: the lock did not cover the wait for a slot", () => {
    const untuned = tuneQueue(devBudget);
    expect(untuned.lockDuration).toBe("PT2M");
    expect(holdProblems(untuned.deliveryBudgetMs, devConsumer, lockOf(untuned))).toEqual([
      "with 4 messages in flight for 2 Stripe calls a message may be held 207000 ms (a wait for a slot plus its own delivery) but the lock covers 120000 ms: set maxAutoLockRenewalDurationInMs to at least 207000, or deploy the queue tuned for this concurrency (its lock and renewal then cover it)",
    ]);
  });

  it("gets a lock that covers the wait when the queue is tuned for it", () => {
    const tuning = tuneQueue({ ...devBudget, concurrency: devConsumer });
    expect(tuning.messageHoldMs).toBe(207_000);
    expect(tuning.lockDuration).toBe("PT3M30S");
    expect(tuning.consumer.maxAutoLockRenewalDurationInMs).toBe(0);
    expect(holdProblems(tuning.deliveryBudgetMs, devConsumer, lockOf(tuning))).toEqual([]);
    expect(tuning.explanation.messageHoldMs).toContain("waiting for one of 2 Stripe slots shared by 4 messages in flight");
  });
});

describe("tuneQueue with a consumer's concurrency", () => {
  it("renews for at least the whole hold when it does not fit one lock (prod's slow invoice queue)", () => {
    const budget = { stripe: { timeoutMs: 80_000, maxNetworkRetries: 2, threeDsP99Ms: 120_000 }, processingMs: 5000, concurrency: { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 2 } };
    const tuning = tuneQueue(budget);
    expect(tuning.lockDuration).toBe("PT5M");
    expect(tuning.messageHoldMs).toBe(753_000);
    expect(tuning.consumer.maxAutoLockRenewalDurationInMs).toBe(753_000);
    expect(coverageProblems(budget, lockOf(tuning))).toEqual([]);
    // a renewal that covers the delivery budget twice over for one Stripe call does not cover three calls' wait
    expect(coverageProblems({ ...budget, concurrency: { ...budget.concurrency, stripeCallsPerMessage: 3 } }, lockOf(tuning))).toEqual([
      expect.stringContaining("may be held 2259000 ms (a wait for a slot plus its own delivery)"),
    ]);
  });

  it("refuses a concurrency with more than twice as many messages as Stripe slots, naming the field", () => {
    expect(() => tuneQueue({ ...devBudget, concurrency: { maxConcurrentCalls: 5, maxConcurrentStripeCalls: 2 } })).toThrow(TuningError);
    expect(() => tuneQueue({ ...devBudget, concurrency: { maxConcurrentCalls: 5, maxConcurrentStripeCalls: 2 } })).toThrow(
      /concurrency\.maxConcurrentStripeCalls \(2\) must be between half of maxConcurrentCalls \(5\) and all of it/,
    );
  });

  it("always covers the hold it computes, and its grace period does too", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 90_000 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 32 }),
        fc.integer({ min: 0, max: 32 }),
        (timeoutMs, maxNetworkRetries, calls, extraSlots) => {
          const concurrency = { maxConcurrentCalls: calls, maxConcurrentStripeCalls: Math.min(calls, Math.ceil(calls / 2) + extraSlots) };
          const budget = { stripe: { timeoutMs, maxNetworkRetries }, concurrency };
          const tuning = tuneQueue(budget);
          const lock = lockOf(tuning);
          expect(holdProblems(tuning.deliveryBudgetMs, concurrency, lock)).toEqual([]);
          expect(coverageProblems(budget, lock)).toEqual([]);
          try {
            const bounds = replicaBounds({ ...concurrency, stripeRatePerSecond: 1e6, connectionBudget: 1e6, deliveryBudgetMs: tuning.deliveryBudgetMs });
            expect(bounds.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(tuning.messageHoldMs);
          } catch (error) {
            expect((error as Error).message).toMatch(/over Container Apps' 600 s termination grace period/);
          }
        },
      ),
    );
  });
});
