import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseIsoDuration } from "../../tuning/index.js";
import {
  coverageProblems,
  DUPLICATE_WINDOW_MAX_MS,
  DUPLICATE_WINDOW_MIN_MS,
  LOCK_MAX_MS,
  LOCK_MIN_MS,
  MAX_DELIVERY_COUNT,
  MIN_DELIVERY_COUNT,
  MIN_TTL_MS,
  TuningError,
  tuneQueue,
  worstCaseStripeMs,
  type LatencyBudget,
} from "../../tuning/index.js";

const budgetArb: fc.Arbitrary<LatencyBudget> = fc.record(
  {
    stripe: fc.record(
      {
        timeoutMs: fc.integer({ min: 1, max: 600_000 }),
        maxNetworkRetries: fc.integer({ min: 0, max: 10 }),
        threeDsP99Ms: fc.integer({ min: 0, max: 600_000 }),
      },
      { requiredKeys: ["timeoutMs", "maxNetworkRetries"] },
    ),
    processingMs: fc.integer({ min: 0, max: 120_000 }),
    safetyMarginMs: fc.integer({ min: 0, max: 60_000 }),
    maxDeliveryCount: fc.integer({ min: MIN_DELIVERY_COUNT, max: MAX_DELIVERY_COUNT }),
  },
  { requiredKeys: ["stripe"] },
);

const neededMs = (budget: LatencyBudget) =>
  worstCaseStripeMs(budget.stripe) + (budget.processingMs ?? 2000) + (budget.safetyMarginMs ?? 10_000);

describe("worstCaseStripeMs", () => {
  it("is attempts x timeout + the SDK's capped exponential backoff + the 3-D Secure wait", () => {
    expect(worstCaseStripeMs({ timeoutMs: 30_000, maxNetworkRetries: 2, threeDsP99Ms: 0 })).toBe(91_500);
    // stripe-node's defaults: 3 x 80 s + 0.5 s + 1 s
    expect(worstCaseStripeMs({ timeoutMs: 80_000, maxNetworkRetries: 2 })).toBe(241_500);
    // backoff 0.5, 1, 2, 4, 5, 5 s: capped at 5 s from the fifth retry
    expect(worstCaseStripeMs({ timeoutMs: 1000, maxNetworkRetries: 6, threeDsP99Ms: 250 })).toBe(7000 + 17_500 + 250);
    expect(worstCaseStripeMs({ timeoutMs: 1000, maxNetworkRetries: 0 })).toBe(1000);
  });

  it("grows with every input", () => {
    fc.assert(
      fc.property(budgetArb, fc.integer({ min: 1, max: 10_000 }), (budget, more) => {
        const base = worstCaseStripeMs(budget.stripe);
        expect(worstCaseStripeMs({ ...budget.stripe, timeoutMs: budget.stripe.timeoutMs + more })).toBeGreaterThan(base);
        if (budget.stripe.maxNetworkRetries < 10) {
          expect(
            worstCaseStripeMs({ ...budget.stripe, maxNetworkRetries: budget.stripe.maxNetworkRetries + 1 }) - base,
          ).toBeGreaterThanOrEqual(budget.stripe.timeoutMs + 500);
        }
        expect(worstCaseStripeMs({ ...budget.stripe, threeDsP99Ms: (budget.stripe.threeDsP99Ms ?? 0) + more })).toBe(base + more);
      }),
    );
  });
});

describe("the real Stripe SDK stays within worstCaseStripeMs", () => {
  let server: Server;
  let requests = 0;
  beforeAll(async () => {
    // Answers nothing: every attempt times out, so the SDK spends its whole retry budget.
    server = createServer(() => {
      requests++;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("makes retries + 1 attempts and takes at least the timeouts plus the minimum backoff, at most the worst case", async () => {
    const budget = { timeoutMs: 300, maxNetworkRetries: 2 };
    const { port } = server.address() as AddressInfo;
    const stripe = new Stripe("sk_test_sandbox", {
      host: "127.0.0.1",
      port,
      protocol: "http",
      timeout: budget.timeoutMs,
      maxNetworkRetries: budget.maxNetworkRetries,
    });
    const started = performance.now();
    const error = await stripe.customers.retrieve("cus_timeout").catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(requests).toBe(budget.maxNetworkRetries + 1);
    // The SDK never sleeps less than 0.5 s between attempts (jitter only shortens the capped backoff).
    expect(elapsed).toBeGreaterThanOrEqual(3 * budget.timeoutMs + 2 * 500 - 50);
    // Upper bound: the computed worst case, plus scheduling slack on a shared machine.
    expect(elapsed).toBeLessThanOrEqual(worstCaseStripeMs(budget) + 1500);
  });
});

describe("tuneQueue", () => {
  it("turns the issue's example budget into PT2M, no renewal, 10 deliveries", () => {
    const tuning = tuneQueue({ stripe: { timeoutMs: 30_000, maxNetworkRetries: 2, threeDsP99Ms: 0 }, processingMs: 2000, maxDeliveryCount: 10 });
    expect(tuning).toMatchObject({
      worstCaseStripeMs: 91_500,
      deliveryBudgetMs: 103_500,
      lockDuration: "PT2M",
      lockDurationMs: 120_000,
      maxDeliveryCount: 10,
      defaultMessageTimeToLive: "P14D",
      consumer: { maxAutoLockRenewalDurationInMs: 0, stripeTimeoutMs: 30_000, stripeMaxNetworkRetries: 2 },
    });
  });

  it("holds its invariants for every safe budget", () => {
    fc.assert(
      fc.property(budgetArb, fc.boolean(), (budget, renewal) => {
        const needed = neededMs(budget);
        if (!renewal && needed > LOCK_MAX_MS) return; // covered by the next property
        const tuning = tuneQueue({ ...budget, renewal });
        const worst = worstCaseStripeMs(budget.stripe);
        const renewalMs = tuning.consumer.maxAutoLockRenewalDurationInMs;

        expect(tuning.worstCaseStripeMs).toBe(worst);
        expect(tuning.lockDurationMs).toBeGreaterThanOrEqual(LOCK_MIN_MS);
        expect(tuning.lockDurationMs).toBeLessThanOrEqual(LOCK_MAX_MS);
        expect(parseIsoDuration(tuning.lockDuration)).toBe(tuning.lockDurationMs);
        // Either one lock covers the delivery, or the consumer renews for >= 2 x the worst case and the whole budget.
        if (renewalMs === 0) {
          expect(tuning.lockDurationMs).toBeGreaterThanOrEqual(needed);
        } else {
          expect(renewal).toBe(true);
          expect(tuning.lockDurationMs).toBeLessThan(needed);
          expect(renewalMs).toBeGreaterThanOrEqual(2 * worst);
          expect(renewalMs).toBeGreaterThanOrEqual(needed);
        }
        expect(coverageProblems(budget, { lockDurationMs: tuning.lockDurationMs, maxAutoLockRenewalDurationInMs: renewalMs })).toEqual([]);
        // The TTL outlives every delivery's hold on the message, and is never under 14 days.
        const hold = renewalMs === 0 ? tuning.lockDurationMs : renewalMs + tuning.lockDurationMs;
        expect(parseIsoDuration(tuning.defaultMessageTimeToLive)).toBe(tuning.defaultMessageTimeToLiveMs);
        expect(tuning.defaultMessageTimeToLiveMs).toBeGreaterThanOrEqual(tuning.maxDeliveryCount * hold);
        expect(tuning.defaultMessageTimeToLiveMs).toBeGreaterThanOrEqual(MIN_TTL_MS);
        expect(parseIsoDuration(tuning.duplicateDetectionHistoryTimeWindow)).toBe(tuning.duplicateDetectionWindowMs);
        expect(tuning.duplicateDetectionWindowMs).toBeGreaterThanOrEqual(DUPLICATE_WINDOW_MIN_MS);
        expect(tuning.duplicateDetectionWindowMs).toBeLessThanOrEqual(DUPLICATE_WINDOW_MAX_MS);
        expect(tuning.maxDeliveryCount).toBe(budget.maxDeliveryCount ?? 10);
        expect(tuning.consumer.stripeTimeoutMs).toBe(budget.stripe.timeoutMs);
        expect(tuning.consumer.stripeMaxNetworkRetries).toBe(budget.stripe.maxNetworkRetries);
        for (const key of [
          "worstCaseStripeMs",
          "lockDuration",
          "maxAutoLockRenewalDurationInMs",
          "maxDeliveryCount",
          "defaultMessageTimeToLive",
          "duplicateDetectionHistoryTimeWindow",
          "stripeTimeoutMs",
          "stripeMaxNetworkRetries",
        ]) {
          expect(tuning.explanation[key], key).toMatch(/\w{3,}/);
        }
      }),
    );
  });

  it("refuses a budget that does not fit one lock when renewal is off, naming the numbers and the fix", () => {
    fc.assert(
      fc.property(budgetArb, (budget) => {
        fc.pre(neededMs(budget) > LOCK_MAX_MS);
        let caught: unknown;
        try {
          tuneQueue({ ...budget, renewal: false });
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(TuningError);
        const message = (caught as TuningError).message;
        expect(message).toContain("renewal is disabled");
        expect(message).toContain("enable renewal");
        expect(message).toContain(`${budget.stripe.maxNetworkRetries + 1} attempts`);
      }),
    );
  });

  it("suggests a Stripe timeout that really fits", () => {
    const budget = { stripe: { timeoutMs: 120_000, maxNetworkRetries: 2 }, renewal: false };
    expect(() => tuneQueue(budget)).toThrow(/lower stripe\.timeoutMs to at most 95000/);
    const fitted = tuneQueue({ ...budget, stripe: { ...budget.stripe, timeoutMs: 95_000 } });
    expect(fitted.consumer.maxAutoLockRenewalDurationInMs).toBe(0);
    expect(fitted.lockDurationMs).toBe(LOCK_MAX_MS);
  });

  it("uses a requested lock, renewing when it is shorter than the delivery budget", () => {
    const long = tuneQueue({ stripe: { timeoutMs: 10_000, maxNetworkRetries: 1 }, lockDuration: "PT5M" });
    expect(long.lockDuration).toBe("PT5M");
    expect(long.consumer.maxAutoLockRenewalDurationInMs).toBe(0);
    const short = tuneQueue({ stripe: { timeoutMs: 30_000, maxNetworkRetries: 2 }, lockDuration: "PT30S" });
    expect(short.lockDurationMs).toBe(30_000);
    expect(short.consumer.maxAutoLockRenewalDurationInMs).toBe(2 * 103_500);
    expect(() => tuneQueue({ stripe: { timeoutMs: 30_000, maxNetworkRetries: 2 }, lockDuration: "PT30S", renewal: false })).toThrow(
      /lengthen lockDuration to at least PT1M44S/,
    );
  });

  it("collects every invalid number into one TuningError", () => {
    let caught: TuningError | undefined;
    try {
      tuneQueue({ stripe: { timeoutMs: -1, maxNetworkRetries: 2.5 }, maxDeliveryCount: 1, lockDuration: "P5M" });
    } catch (error) {
      caught = error as TuningError;
    }
    expect(caught).toBeInstanceOf(TuningError);
    expect(caught?.problems).toEqual([
      "stripe.timeoutMs is -1: expected a whole number from 1 to 600000",
      "stripe.maxNetworkRetries is 2.5: expected a whole number from 0 to 10",
      expect.stringContaining("maxDeliveryCount is 1: use 3 to 50"),
      expect.stringContaining('lockDuration: "P5M" means months'),
    ]);
  });

  it("refuses delivery counts outside the bounds the policy enforces", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: -5, max: MIN_DELIVERY_COUNT - 1 }), fc.integer({ min: MAX_DELIVERY_COUNT + 1, max: 5000 })),
        (count) => {
          expect(() => tuneQueue({ stripe: { timeoutMs: 1000, maxNetworkRetries: 0 }, maxDeliveryCount: count })).toThrow(TuningError);
        },
      ),
    );
  });
});
