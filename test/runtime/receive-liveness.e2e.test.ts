// The consumer's liveness means "the receive loop turns", not "the event loop answers": the real @azure/service-bus
// SDK against the sandbox's Service Bus. An idle consumer on an empty queue stays live past its stall threshold (its
// peeks are answered); one whose broker stops answering is not live once the threshold passes, and says why.
import { afterEach, describe, expect, it, vi } from "vitest";
import { startBillingConsumer } from "../../runtime/consumer.js";
import type { RunningConsumer } from "../../runtime/consumer-contract.js";
import { receiveHeartbeat } from "../../runtime/consumer/receive-heartbeat.js";
import { receiveStallMs } from "../../tuning/index.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "./support/billing-sandbox.js";

const probeEveryMs = 200;
// A queue whose lock covers the test's delivery budget (2 s Stripe timeout, no retry, no processing or margin).
const lockDurationMs = 2_000;
const tuning = {
  consumer: { maxAutoLockRenewalDurationInMs: 0, stripeTimeoutMs: 2_000, stripeMaxNetworkRetries: 0 },
  lockDurationMs,
  budget: { stripe: { timeoutMs: 2_000, maxNetworkRetries: 0 }, processingMs: 0, safetyMarginMs: 0 },
};
const stallMs = receiveStallMs(lockDurationMs, probeEveryMs);

let sandbox: BillingSandbox | undefined;
let consumer: RunningConsumer | undefined;
afterEach(async () => {
  await consumer?.close();
  await sandbox?.stop();
  consumer = sandbox = undefined;
});

async function startIdleConsumer(): Promise<{ consumer: RunningConsumer; sandbox: BillingSandbox; queue: string }> {
  sandbox = await startBillingSandbox();
  const queue = sandbox.queue(lockDurationMs);
  const { maxAutoLockRenewalDurationInMs: _renewal, ...options } = consumerOptionsFor(sandbox, queue);
  consumer = await startBillingConsumer({ ...options, inMemory: true, tuning, receiveProbeEveryMs: probeEveryMs });
  return { consumer, sandbox, queue };
}

const liveness = (running: RunningConsumer) => {
  if (!running.liveness) throw new Error("the runtime's consumer reports no liveness");
  return running.liveness();
};

describe("the consumer's liveness (the receive loop turns)", () => {
  it("stays live on an empty queue well past its stall threshold, the broker answering its peeks", async () => {
    const idle = await startIdleConsumer();
    expect(liveness(idle.consumer).stallMs).toBe(stallMs);
    const until = Date.now() + 3 * stallMs;
    const seen: boolean[] = [];
    while (Date.now() < until) {
      seen.push(liveness(idle.consumer).live);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(seen.every(Boolean)).toBe(true);
    // It turned after it started: the peeks were answered, not merely its start remembered.
    expect(Date.now() - liveness(idle.consumer).lastTurnAt).toBeLessThan(stallMs);
    // And it still bills.
    const event = await idle.sandbox.event();
    await idle.sandbox.send(idle.queue, { body: event, messageId: "liveness-bills" });
    await waitFor("charged", () => idle.sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).length === 1);
    expect(liveness(idle.consumer).live).toBe(true);
  }, 60_000);

  it("is not live once its broker stops answering for longer than the threshold, and says why", async () => {
    const idle = await startIdleConsumer();
    expect(liveness(idle.consumer).live).toBe(true);
    await idle.sandbox.serviceBus.stop();
    const stalled = await waitFor("liveness fails", () => {
      const state = liveness(idle.consumer);
      return state.live ? undefined : state;
    });
    expect(stalled.reason).toMatch(/the receive loop has not turned for .* \(no message, no answer to a peek\), longer than 2 s/);
    expect(Date.now() - stalled.lastTurnAt).toBeGreaterThan(stallMs);
  }, 60_000);
});

describe("receiveHeartbeat", () => {
  it("fails a message stuck in flight past its hold plus a stall, though the loop turns", () => {
    let now = 1_000_000;
    const oldest = now;
    const heartbeat = receiveHeartbeat({ lockDurationMs: 60_000, heldMs: 100_000, now: () => now }, () => oldest);
    now += 160_000;
    heartbeat.turned();
    expect(heartbeat.liveness().live).toBe(true);
    now += 1_000;
    heartbeat.turned();
    expect(heartbeat.liveness()).toMatchObject({ live: false, reason: expect.stringContaining("a message has been in flight for 161 s, longer than its hold plus a stall (160 s)") });
  });

  it("peeks only in an interval no message turned the loop in, and counts each answer as a turn", async () => {
    vi.useFakeTimers();
    try {
      let peeks = 0;
      const receiver = {
        peekMessages: async () => {
          peeks++;
          return [];
        },
      };
      const heartbeat = receiveHeartbeat({ lockDurationMs: 60_000, heldMs: 10_000, probeEveryMs: 1_000 }, () => undefined);
      const stop = heartbeat.probe(receiver, () => undefined);
      // Busy: a message turns the loop every 200 ms, so no interval needs a peek.
      for (let tick = 0; tick < 50; tick++) {
        heartbeat.turned();
        await vi.advanceTimersByTimeAsync(200);
      }
      expect(peeks).toBe(0);
      // Idle: one peek an interval, each answer a turn, so it stays live past the stall threshold.
      await vi.advanceTimersByTimeAsync(120_000);
      expect(peeks).toBeGreaterThanOrEqual(100);
      expect(heartbeat.liveness().live).toBe(true);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it("takes its threshold from the queue's lock, never under three probes", () => {
    expect(receiveStallMs(210_000)).toBe(210_000);
    expect(receiveStallMs(5_000)).toBe(30_000);
    expect(receiveStallMs()).toBe(60_000);
  });
});
