// A degraded Stripe through the real SDKs against the sandbox: a rate limit below the consumer's concurrency (429s
// are waits inside the delivery, never attempts) and an outage (the breaker pauses intake, probes, resumes), with
// `maxAttempts` so small that any counted failure would dead-letter.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { Guard } from "../../../runtime/guard/guard.js";
import type { UsageEvent } from "../../../runtime/event/usage-event.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";
import { chargeCounts, drained as queueDrained, makeEvents, outageRequestsPerSecond, sendEvents, throttledShare } from "../support/sandbox-ledger.js";

let sandbox: BillingSandbox;
let guard: Guard;
const logs: string[] = [];
const running: RunningConsumer[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  guard = await Guard.open({ pglite: sandbox.pglite, clock: sandbox.clock });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((consumer) => consumer.close()));
  sandbox.stripe.degradation.rateLimit(undefined);
  sandbox.stripe.degradation.endOutage();
});
afterAll(async () => {
  await guard?.close();
  await sandbox?.stop();
});

async function start(queue: string, extra: Partial<BillingConsumerOptions> = {}): Promise<RunningConsumer> {
  const consumer = await startBillingConsumer({ ...consumerOptionsFor(sandbox, queue), pglite: sandbox.pglite, log: (line) => logs.push(line), ...extra });
  running.push(consumer);
  return consumer;
}

const events = (count: number) => makeEvents(sandbox, count);
const sendAll = (queue: string, batch: UsageEvent[]) => sendEvents(sandbox, queue, batch);
const charges = (batch: UsageEvent[]) => chargeCounts(sandbox, batch);
const drained = (queue: string) => queueDrained(sandbox, queue);

describe("a degraded Stripe", () => {
  it("a rate limit below the concurrency: every event charged once, none dead-lettered, few 429s, no attempt spent", async () => {
    const queue = sandbox.queue(5_000);
    const batch = await events(24);
    sandbox.stripe.degradation.rateLimit({ global: { perSecond: 6, burst: 3 } });
    const before = sandbox.stripe.degradation.stats;
    // One attempt: a 429 counted as an attempt would dead-letter at once.
    await start(queue, { maxAttempts: 1, maxConcurrentCalls: 8, leaseMs: 20_000 });
    await sendAll(queue, batch);
    await waitFor("every event charged", () => charges(batch).every((n) => n >= 1) && drained(queue), 30_000);
    const { throttled, share } = throttledShare(before, sandbox.stripe.degradation.stats);
    expect(charges(batch)).toEqual(batch.map(() => 1));
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toEqual([]);
    expect(throttled).toBeGreaterThan(0);
    // The governor learns the budget from the first 429s: the rest wait for tokens instead of being refused.
    expect(share).toBeLessThan(0.35);
    for (const event of batch) expect((await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.state).toBe("done");
  });

  it("an outage: the breaker pauses intake, at most 2 requests/s while down, every event charged once after, none dead-lettered", async () => {
    const queue = sandbox.queue(5_000);
    const batch = await events(30);
    const outageMs = 8_000;
    sandbox.stripe.degradation.outage({ answer: 503, durationMs: outageMs });
    const downFrom = performance.now();
    await start(queue, { maxAttempts: 2, maxConcurrentCalls: 4, breakers: { firstProbeDelayMs: 500, maxProbeDelayMs: 2_000 } });
    await sendAll(queue, batch);
    await waitFor("every event charged", () => charges(batch).every((n) => n >= 1) && drained(queue), 40_000);
    const upAfterMs = performance.now() - downFrom;
    expect(charges(batch)).toEqual(batch.map(() => 1));
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toEqual([]);
    expect(logs.some((line) => line.startsWith("stripe is down"))).toBe(true);
    expect(logs.some((line) => line.startsWith("stripe answers again"))).toBe(true);
    // Once the breaker opened (the first second), requests per second while down.
    expect(Math.max(0, ...outageRequestsPerSecond(sandbox.stripe.degradation.stats, downFrom + 1_000, downFrom + outageMs))).toBeLessThanOrEqual(2);
    // Back within seconds of the outage's end (probe backoff at most 2 s, waits at most 1 s here).
    expect(upAfterMs).toBeLessThan(outageMs + 8_000);
  });
});

