// A degraded PostgreSQL under the consumer, through a TCP fault proxy: a failover (connections refused and reset)
// and a hang (the server accepts and never answers), each for longer than a delivery. The consumer pauses on the
// database's breaker, probes, resumes: every event charged once, none dead-lettered, with maxAttempts so small that
// any failure counted as an attempt would dead-letter.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer } from "../../../runtime/consumer/consumer.js";
import { ConsumerStartError } from "../../../runtime/consumer/servicebus-preflight.js";
import { Guard } from "../../../runtime/guard/guard.js";
import type { UsageEvent } from "../../../runtime/event/usage-event.js";
import { startDatabaseFaultProxy, type DatabaseFaultMode, type DatabaseFaultProxy } from "../../../sandbox/database/index.js";
import { createScratchDatabase, postgresServerUrl } from "../guard/databases.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";
import { allCharged, chargeCounts, drained as queueDrained, makeEvents } from "../support/sandbox-ledger.js";

// Never skipped: without TEST_DATABASE_URL a server is started for this process, or the tests fail saying why.
let serverUrl: string;
beforeAll(async () => {
  serverUrl = await postgresServerUrl();
});

let sandbox: BillingSandbox;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let proxy: DatabaseFaultProxy;
let guard: Guard;

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  database = await createScratchDatabase(serverUrl);
  const url = new URL(database.url);
  proxy = await startDatabaseFaultProxy({ host: url.hostname, port: Number(url.port || 5432) });
  guard = await Guard.open({ databaseUrl: database.url, clock: sandbox.clock });
});
afterAll(async () => {
  await guard?.close();
  await proxy?.stop();
  await database?.drop();
  await sandbox?.stop();
});

async function run(fault: DatabaseFaultMode, faultMs: number): Promise<{ batch: UsageEvent[]; logs: string[] }> {
  const queue = sandbox.queue(5_000);
  const batch = await makeEvents(sandbox, 20, (i) => ({ amountCents: 3_000 + i, billingPeriod: fault === "refuse" ? "2026-08" : "2026-09" }));
  const logs: string[] = [];
  const consumer: RunningConsumer = await startBillingConsumer({
    ...consumerOptionsFor(sandbox, queue),
    databaseUrl: proxy.urlFor(database.url),
    maxAttempts: 2,
    maxConcurrentCalls: 4,
    leaseMs: 4_000,
    // Short, so a hang is found within a couple of seconds (the defaults: 5 s to connect, 20 s for an answer).
    databaseTimeouts: { connectionTimeoutMillis: 1_000, query_timeout: 1_500, statement_timeout: 1_500 },
    breakers: { firstProbeDelayMs: 500, maxProbeDelayMs: 1_000 },
    log: (line) => logs.push(line),
  });
  try {
    const sender = sandbox.client.createSender(queue);
    await sender.sendMessages(batch.slice(0, 5).map((body, i) => ({ body, messageId: `${queue}-${i}` })));
    await waitFor("the first events charged", () => charged(batch.slice(0, 5)));
    proxy.mode(fault);
    await sender.sendMessages(batch.slice(5).map((body, i) => ({ body, messageId: `${queue}-${i + 5}` })));
    await sender.close();
    await sleep(faultMs);
    proxy.mode("pass");
    const back = performance.now();
    await waitFor("every event charged and settled", () => charged(batch) && drained(queue), 40_000);
    const billedAfterMs = performance.now() - back;
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toEqual([]);
    expect(chargeCounts(sandbox, batch)).toEqual(batch.map(() => 1));
    // The backlog is billed within seconds of the database coming back (probe backoff at most 1 s here).
    expect(billedAfterMs).toBeLessThan(15_000);
    return { batch, logs };
  } finally {
    await consumer.close();
  }
}

const charged = (events: UsageEvent[]) => allCharged(sandbox, events);
const drained = (queue: string) => queueDrained(sandbox, queue);

describe("a degraded PostgreSQL", () => {
  it("a failover (connections refused for 8 s): paused on the database's breaker, resumed, every event charged once", async () => {
    const { logs } = await run("refuse", 8_000);
    expect(logs.some((line) => line.startsWith("database is down"))).toBe(true);
    expect(logs.some((line) => line.startsWith("database answers again"))).toBe(true);
    expect(logs.filter((line) => /dead-lettered/.test(line))).toEqual([]);
  });

  it("a hang (the server accepts and never answers, 8 s): timeouts make it an outage, every event charged once", async () => {
    const { logs } = await run("hang", 8_000);
    expect(logs.some((line) => line.startsWith("database is down"))).toBe(true);
    expect(logs.filter((line) => /dead-lettered/.test(line))).toEqual([]);
  });

  it("a replica that starts during a hang waits for the database (no bound by default), then bills", async () => {
    const queue = sandbox.queue(5_000);
    const batch = await makeEvents(sandbox, 5, (i) => ({ amountCents: 4_000 + i, billingPeriod: "2026-10" }));
    const sender = sandbox.client.createSender(queue);
    await sender.sendMessages(batch.map((body, i) => ({ body, messageId: `${queue}-${i}` })));
    await sender.close();
    proxy.mode("hang");
    const logs: string[] = [];
    const starting = startBillingConsumer({
      ...consumerOptionsFor(sandbox, queue),
      databaseUrl: proxy.urlFor(database.url),
      maxConcurrentCalls: 4,
      databaseTimeouts: { connectionTimeoutMillis: 1_000, query_timeout: 1_500, statement_timeout: 1_500 },
      log: (line) => logs.push(line),
    });
    await sleep(4_000);
    proxy.mode("pass");
    const consumer = await starting;
    try {
      await waitFor("every event charged and settled", () => charged(batch) && drained(queue), 30_000);
      expect(chargeCounts(sandbox, batch)).toEqual(batch.map(() => 1));
      expect(logs.filter((line) => line.startsWith("database: unreachable at start"))).toHaveLength(1);
      expect(logs.some((line) => line.startsWith("database: reachable after"))).toBe(true);
    } finally {
      await consumer.close();
    }
  });

  it("at start, a database failure that is not an outage (no such database) ends the start at once, named", async () => {
    const missing = new URL(proxy.urlFor(database.url));
    missing.pathname = "/chargeguard_no_such_database";
    const queue = sandbox.queue(5_000);
    const started = performance.now();
    const error = await startBillingConsumer({ ...consumerOptionsFor(sandbox, queue), databaseUrl: missing.toString(), log: () => {} }).catch((e: unknown) => e);
    // A wrong DATABASE_URL, named: the generated consumer exits 2 on it.
    expect(error).toBeInstanceOf(ConsumerStartError);
    expect(String(error)).toMatch(/DATABASE_URL .*chargeguard_no_such_database/);
    // Not a wait for a database that will never be there.
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
