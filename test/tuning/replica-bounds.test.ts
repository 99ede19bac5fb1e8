import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  connectionBudgetPerConsumer,
  guardPoolSize,
  replicaConnections,
  replicaBounds,
  ReplicaBudgetError,
  stripeRatePerConsumer,
  STRIPE_LIVE_RATE_LIMIT_PER_SECOND,
  messageHoldMs,
  ROLLOUT_REVISIONS,
  tuneQueue,
  type ReplicaBudget,
} from "../../tuning/index.js";

const usageBilling = tuneQueue({ stripe: { timeoutMs: 30_000, maxNetworkRetries: 2 }, processingMs: 2000 });

describe("replicaBounds", () => {
  it("binds on the Stripe rate for the prod example and explains each number", () => {
    // min(100 x 0.8 / 2, 25 x 0.8) = 20 calls/s each; 1 Stripe call in flight at 250 ms = 4 calls/s per replica, and a
    // rollout runs two revisions side by side: 20 / 4 / 2 = 2 replicas.
    const bounds = replicaBounds({
      maxConcurrentCalls: 2,
      maxConcurrentStripeCalls: 1,
      stripeRatePerSecond: stripeRatePerConsumer(STRIPE_LIVE_RATE_LIMIT_PER_SECOND, 2),
      connectionBudget: connectionBudgetPerConsumer({ maxConnections: 200, consumers: 2 }),
      deliveryBudgetMs: usageBilling.deliveryBudgetMs,
    });
    expect(bounds).toMatchObject({
      minReplicas: 1,
      maxReplicas: 2,
      maxReplicasByStripe: 2,
      maxReplicasByConnections: 3,
      stripeCallsPerSecondPerReplica: 4,
      poolSizePerReplica: 10,
      connectionsPerReplica: 13,
      messageCount: 2,
      // 2 messages for 1 Stripe slot: a message may wait one delivery budget (103.5 s) for the slot, then take its own.
      messageHoldMs: 207_000,
      terminationGracePeriodSeconds: 207,
    });
    expect(bounds.explanation.maxReplicas).toContain("the Stripe rate budget binds");
    expect(bounds.explanation.maxReplicas).toContain("2 revisions side by side");
    expect(bounds.explanation.terminationGracePeriodSeconds).toContain("waiting for one of 1 Stripe slots");
  });

  it("gives a grace period of one delivery budget when every message in flight has its own Stripe slot", () => {
    const bounds = replicaBounds({ maxConcurrentCalls: 2, maxConcurrentStripeCalls: 2, stripeRatePerSecond: 20, connectionBudget: 90, deliveryBudgetMs: 103_500 });
    expect(bounds.terminationGracePeriodSeconds).toBe(104);
    expect(messageHoldMs(103_500, { maxConcurrentCalls: 2, maxConcurrentStripeCalls: 2 })).toBe(103_500);
  });

  it("binds on connections when the Stripe budget is wide", () => {
    const bounds = replicaBounds({
      maxConcurrentCalls: 32,
      maxConcurrentStripeCalls: 16,
      stripeRatePerSecond: 1000,
      connectionBudget: 90,
      deliveryBudgetMs: 60_000,
    });
    expect(bounds.maxReplicasByConnections).toBe(1); // 90 / 36 (a pool of 33, 2 for the Stripe budget, 1 probe) / 2 revisions
    expect(bounds.maxReplicas).toBe(1);
    expect(bounds.explanation.maxReplicas).toContain("the connection budget binds");
  });

  it("never lets two revisions of replicas exceed either budget nor the grace period fall short of a message's hold", () => {
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
            // between half the messages in flight and all of them (more waiting messages are refused)
            maxConcurrentStripeCalls: Math.max(Math.ceil(calls / 2), Math.min(stripeCalls, calls)),
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
          const side = ROLLOUT_REVISIONS;
          expect(side * bounds.maxReplicas * perReplica).toBeLessThanOrEqual(rate + 1e-9);
          expect(side * bounds.maxReplicas * replicaConnections(calls)).toBeLessThanOrEqual(connections);
          expect(bounds.maxReplicas).toBeGreaterThanOrEqual(bounds.minReplicas);
          expect(bounds.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(messageHoldMs(delivery, budget));
          // the ceiling is tight: one more replica in each revision breaks a budget (or Container Apps' own ceiling)
          expect(
            side * (bounds.maxReplicas + 1) * perReplica > rate || side * (bounds.maxReplicas + 1) * replicaConnections(calls) > connections || bounds.maxReplicas === 1000,
          ).toBe(true);
        },
      ),
    );
  });

  it("refuses a set maxReplicas over the budget, zero minimum replicas and a grace period Container Apps cannot give", () => {
    const base = { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 4, stripeRatePerSecond: 80, connectionBudget: 100, deliveryBudgetMs: 103_500 };
    expect(() => replicaBounds({ ...base, maxReplicas: 9 })).toThrow(/maxReplicas 9 is outside 1\.\.2: the Stripe rate budget allows at most 2/);
    expect(() => replicaBounds({ ...base, minReplicas: 0 })).toThrow(/minReplicas is 0: keep at least 1 replica/);
    expect(() => replicaBounds({ ...base, deliveryBudgetMs: 700_000 })).toThrow(/over Container Apps' 600 s termination grace period/);
    // 350 s fits alone, but not with a wait for a Stripe slot in front of it
    expect(() => replicaBounds({ ...base, maxConcurrentStripeCalls: 2, deliveryBudgetMs: 350_000 })).toThrow(/held 11\.7 min: .*waiting for one of 2 Stripe slots/);
    expect(() => replicaBounds({ ...base, maxConcurrentCalls: 40, maxConcurrentStripeCalls: 40 })).toThrow(/maxConcurrentStripeCalls 40: one replica makes up to 160 Stripe calls\/s/);
    expect(() => replicaBounds({ ...base, maxConcurrentStripeCalls: 1 })).toThrow(/between half of maxConcurrentCalls \(4\) and all of it/);
    expect(() => replicaBounds({ ...base, connectionBudget: 15 })).toThrow(/connectionBudget 15: 1 replica\(s\) x 13 connections \(a guard pool of 10, the Stripe budget's and the breaker probe's\) in each of the 2 revisions/);
  });

  it("shares the server's connections and the account's rate among consumers", () => {
    expect(connectionBudgetPerConsumer({ maxConnections: 200, consumers: 2 })).toBe(90);
    expect(connectionBudgetPerConsumer({ maxConnections: 10, consumers: 1 })).toBe(0);
    // the account's share, capped by one endpoint's 25/s (all of a consumer's charges hit one endpoint)
    expect(stripeRatePerConsumer(100, 1)).toBe(20);
    expect(stripeRatePerConsumer(100, 1, 0.8, 1000)).toBe(80);
    expect(stripeRatePerConsumer(100, 3, 0.8, 1000)).toBe(26.66);
    expect(stripeRatePerConsumer(25, 2)).toBe(10);
    expect(guardPoolSize(1)).toBe(10);
    expect(guardPoolSize(32)).toBe(33);
    // The Stripe budget's two connections and the breaker's probe come on top of the guard pool.
    expect(replicaConnections(32)).toBe(36);
  });
});
