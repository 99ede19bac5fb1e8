// Issue 30, defect 2, scaled down: two replicas on PostgreSQL through the fault proxy; the database stops answering
// for 20 s, then every connection is cut (a standby takes over). Before the fix the cut was emitted as 'error' on the
// `pg` clients the replicas held out of their pools, where nothing listened: an uncaught exception, every replica
// exiting 1. Now: no uncaught exception, every event charged once, none dead-lettered, billed soon after the return,
// with the `pg` timeouts and breaker backoff left at their production defaults.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer } from "../../../runtime/consumer/consumer.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";
import { useProxiedDatabase } from "../support/proxied-database.js";
import { allCharged, chargeCounts, drained, makeEvents, sendEvents } from "../support/sandbox-ledger.js";

const db = useProxiedDatabase();
let sandbox: BillingSandbox;
beforeAll(async () => {
  sandbox = await startBillingSandbox();
});
afterAll(() => sandbox?.stop());

const hangMs = 20_000;
const events = 120;

describe("a database hang that ends with every connection cut (issue 30, defect 2)", () => {
  it(`two replicas ride out a ${hangMs / 1_000} s hang ended by a cut: no uncaught error, every event charged once, none dead-lettered`, async () => {
    const queue = sandbox.queue(5_000);
    const batch = await makeEvents(sandbox, events, (i) => ({ amountCents: 5_000 + i, billingPeriod: "2026-11" }));
    const replica = () =>
      startBillingConsumer({
        ...consumerOptionsFor(sandbox, queue),
        databaseUrl: db.proxy.urlFor(db.url),
        maxConcurrentCalls: 4,
        leaseMs: 4_000,
        // Enough attempts for a lost answer or two; a hang counted as attempts would still exhaust them.
        maxAttempts: 3,
      });
    const replicas: RunningConsumer[] = [await replica(), await replica()];
    try {
      const firstShare = batch.slice(0, 20);
      await sendEvents(sandbox, queue, firstShare, `${queue}-first`);
      await waitFor("the first events charged", () => allCharged(sandbox, firstShare));
      db.proxy.mode("hang");
      await sendEvents(sandbox, queue, batch.slice(20), `${queue}-during`);
      await sleep(hangMs);
      // The hang was real: nothing sent during it was billed (every charge waits on the guard's claim).
      const billedDuringHang = chargeCounts(sandbox, batch.slice(20)).filter((count) => count > 0).length;
      db.proxy.mode("pass", { cut: true });
      const back = performance.now();
      await waitFor("every event charged and the queue drained", () => allCharged(sandbox, batch) && drained(sandbox, queue), 90_000);
      const billedAfterMs = performance.now() - back;

      expect(db.uncaught).toEqual([]);
      expect(chargeCounts(sandbox, batch)).toEqual(batch.map(() => 1));
      expect(sandbox.serviceBus.inspect(queue).deadLettered).toEqual([]);
      // The backlog of 100 takes a few seconds; the rest is the `pg` timeouts (20 s) and the probe's backoff (10 s).
      expect(billedAfterMs).toBeLessThan(30_000);
      expect(billedDuringHang).toBe(0);
    } finally {
      await Promise.all(replicas.map((running) => running.close()));
    }
  }, 180_000);
});
