import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  connectionBudgetPerConsumer,
  guardPoolSize,
  replicaBounds,
  ReplicaBudgetError,
  stripeRatePerConsumer,
  STRIPE_LIVE_RATE_LIMIT_PER_SECOND,
  tuneQueue,
  type ReplicaBudget,
} from "../../tuning/index.js";

const usageBilling = tuneQueue({ stripe: { timeoutMs: 30_000, maxNetworkRetries: 2 }, processingMs: 2000 });

describe("replicaBounds", () => {
  it("binds on the Stripe rate for the prod example and explains each number", () => {
    // 80 calls/s for two consumers = 40 each; 8 Stripe calls in flight at 250 ms = 32 calls/s per replica.
    const bounds = replicaBounds({
      maxConcurrentCalls: 16,
      maxConcurrentStripeCalls: 8,
      stripeRatePerSecond: stripeRatePerConsumer(STRIPE_LIVE_RATE_LIMIT_PER_SECOND, 2),
      connectionBudget: connectionBudgetPerConsumer({ maxConnections: 200, consumers: 2 }),
      deliveryBudgetMs: usageBilling.deliveryBudgetMs,
    });
    expect(bounds).toMatchObject({
      minReplicas: 1,
      maxReplicas: 1,
      maxReplicasByStripe: 1,
      maxReplicasByConnections: 5,
      stripeCallsPerSecondPerReplica: 32,
      poolSizePerReplica: 17,
      messageCount: 16,
      terminationGracePeriodSeconds: 104,
    });
    expect(bounds.explanation.maxReplicas).toContain("the Stripe rate budget binds");
    expect(bounds.explanation.terminationGracePeriodSeconds).toContain("103.5 s");
  });

  it("binds on connections when the Stripe budget is wide", () => {
    const bounds = replicaBounds({
      maxConcurrentCalls: 32,
      maxConcurrentStripeCalls: 16,
      stripeRatePerSecond: 1000,
      connectionBudget: 90,
      deliveryBudgetMs: 60_000,
    });
    expect(bounds.maxReplicasByConnections).toBe(2); // 90 / 33
    expect(bounds.maxReplicas).toBe(2);
    expect(bounds.explanation.maxReplicas).toContain("the connection budget binds");
  });

  it("never lets replicas exceed either budget nor the grace period fall short of the delivery budget", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 50, max: 2000 }),
        fc.integer({ min: 1000, max: 600_000 }),
        (calls, stripeCalls, rate, connections, fastest, delivery) => {
          const budget: ReplicaBudget = {
            maxConcurrentCalls: calls,
            maxConcurrentStripeCalls: Math.min(stripeCalls, calls),
            stripeRatePerSecond: rate,
            connectionBudget: connections,
            fastestStripeCallMs: fastest,
            deliveryBudgetMs: delivery,
          };
          let bounds;
          try {
            bounds = replicaBounds(budget);
          } catch (error) {
            expect(error).toBeInstanceOf(ReplicaBudgetError);
            return;
          }
          const perReplica = (budget.maxConcurrentStripeCalls * 1000) / fastest;
          expect(bounds.maxReplicas * perReplica).toBeLessThanOrEqual(rate + 1e-9);
          expect(bounds.maxReplicas * guardPoolSize(calls)).toBeLessThanOrEqual(connections);
          expect(bounds.maxReplicas).toBeGreaterThanOrEqual(bounds.minReplicas);
          expect(bounds.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(delivery);
          // the ceiling is tight: one more replica breaks a budget (or Container Apps' own ceiling)
          expect((bounds.maxReplicas + 1) * perReplica > rate || (bounds.maxReplicas + 1) * guardPoolSize(calls) > connections || bounds.maxReplicas === 1000).toBe(true);
        },
      ),
    );
  });

  it("refuses a set maxReplicas over the budget, zero minimum replicas and a grace period Container Apps cannot give", () => {
    const base = { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 4, stripeRatePerSecond: 80, connectionBudget: 100, deliveryBudgetMs: 103_500 };
    expect(() => replicaBounds({ ...base, maxReplicas: 9 })).toThrow(/maxReplicas 9 is outside 1\.\.5: the Stripe rate budget allows at most 5/);
    expect(() => replicaBounds({ ...base, minReplicas: 0 })).toThrow(/minReplicas is 0: keep at least 1 replica/);
    expect(() => replicaBounds({ ...base, deliveryBudgetMs: 700_000 })).toThrow(/exceeds Container Apps' 600 s termination grace period/);
    expect(() => replicaBounds({ ...base, maxConcurrentStripeCalls: 40 })).toThrow(/maxConcurrentStripeCalls 40: one replica makes up to 160 Stripe calls\/s/);
    expect(() => replicaBounds({ ...base, connectionBudget: 5 })).toThrow(/connectionBudget 5: 1 replica\(s\) x 10 guard connections do not fit/);
  });

  it("shares the server's connections and the account's rate among consumers", () => {
    expect(connectionBudgetPerConsumer({ maxConnections: 200, consumers: 2 })).toBe(90);
    expect(connectionBudgetPerConsumer({ maxConnections: 10, consumers: 1 })).toBe(0);
    expect(stripeRatePerConsumer(100, 1)).toBe(80);
    expect(guardPoolSize(1)).toBe(10);
    expect(guardPoolSize(32)).toBe(33);
  });
});
