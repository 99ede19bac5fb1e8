// The consumer's liveness means "the receive loop turns", not "the event loop answers": the real @azure/service-bus
// SDK against the sandbox's Service Bus. An idle consumer on an empty queue stays live past its stall threshold (its
// peeks are answered); one whose broker stops answering is not live once the threshold passes, and says why.
import { afterEach, describe, expect, it } from "vitest";
import { startBillingConsumer } from "../../../runtime/consumer/consumer.js";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { receiveStallMs } from "../../../tuning/index.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";

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

  it("is not live while its receive link is refused, though the broker answers its peeks; live again once it receives", async () => {
    const idle = await startIdleConsumer();
    const restore = idle.sandbox.serviceBus.faults.refuseReceiveLinks(idle.queue);
    const stalled = await waitFor("liveness fails", () => {
      const state = liveness(idle.consumer);
      return state.live ? undefined : state;
    });
    expect(stalled.reason).toMatch(/the receive loop has not turned for .* \(no message, its receive link down though the broker answers peeks\)/);
    restore();
    // The SDK re-attaches on its own schedule; a message billed proves the loop turns again.
    const event = await idle.sandbox.event();
    await idle.sandbox.send(idle.queue, { body: event, messageId: "liveness-after-refusal" });
    await waitFor("charged", () => idle.sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).length === 1, 90_000);
    expect(liveness(idle.consumer).live).toBe(true);
  }, 150_000);
});
