// Every `pg` emitter the runtime creates has an 'error' listener for its whole life (pg-errors.ts): the guard's pool
// and the Stripe budget's, and each client they connect, idle or checked out. pg-pool takes its own listener
// (`idleListener`) off a client it hands out, so a held client with no other listener turns a cut connection into an
// uncaught exception (issue 30, defect 2). Real PostgreSQL, the real driver, the sandbox's fault proxy.
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openSqlClient } from "../../../runtime/guard/open-sql-client.js";
import { listenForPgErrors } from "../../../runtime/guard/pg-errors.js";
import { openFleetBudget } from "../../../runtime/resilience/fleet-budget.js";
import { accountLimiter } from "../../../runtime/resilience/fleet-share.js";
import { useProxiedDatabase } from "../support/proxied-database.js";

const db = useProxiedDatabase();
afterEach(() => {
  vi.restoreAllMocks();
  db.proxy.mode("pass");
});

/** Records every pool that connects and every client connected while `run` runs. */
function watchEmitters(): { pools: Set<pg.Pool>; clients: Set<pg.Client> } {
  const pools = new Set<pg.Pool>();
  const clients = new Set<pg.Client>();
  const poolConnect = pg.Pool.prototype.connect;
  const clientConnect = pg.Client.prototype.connect;
  vi.spyOn(pg.Pool.prototype, "connect").mockImplementation(function (this: pg.Pool, ...args: unknown[]) {
    pools.add(this);
    return (poolConnect as (...a: unknown[]) => unknown).apply(this, args) as never;
  });
  vi.spyOn(pg.Client.prototype, "connect").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    clients.add(this);
    return (clientConnect as (...a: unknown[]) => unknown).apply(this, args) as never;
  });
  return { pools, clients };
}

/** Listeners on a client other than pg-pool's own, which it removes while the client is checked out. */
const ownListeners = (client: pg.Client) => client.listeners("error").filter((listener) => listener.name !== "idleListener").length;

describe("an 'error' listener on every pg emitter the runtime creates", () => {
  it("the guard's pool and each client it connects, while checked out and while idle", async () => {
    const seen = watchEmitters();
    const sql = await openSqlClient({ databaseUrl: db.url, poolSize: 2 });
    try {
      await sql.transaction(async () => {
        const [held] = [...seen.clients];
        expect(held).toBeDefined();
        expect(ownListeners(held!)).toBeGreaterThan(0);
      });
      await sql.query("SELECT 1");
      expect(seen.pools.size).toBe(1);
      for (const pool of seen.pools) expect(pool.listenerCount("error")).toBeGreaterThan(0);
      for (const client of seen.clients) expect(ownListeners(client)).toBeGreaterThan(0);
    } finally {
      await sql.close();
    }
  });

  it("the Stripe budget's pool and each client it connects, checked out", async () => {
    const seen = watchEmitters();
    const budget = await openFleetBudget({ databaseUrl: db.url, account: "acct-listeners", member: "a" });
    try {
      await budget.sync([{ limiter: accountLimiter, admitted: 1, throttled: 0, saturated: false }], 200);
      expect(seen.pools.size).toBe(1);
      const [pool] = [...seen.pools];
      expect(pool!.listenerCount("error")).toBeGreaterThan(0);
      const held = await pool!.connect();
      try {
        expect(ownListeners(held)).toBeGreaterThan(0);
      } finally {
        held.release();
      }
      for (const client of seen.clients) expect(ownListeners(client)).toBeGreaterThan(0);
    } finally {
      await budget.close();
    }
  });
});

describe("a connection cut under a checked-out client", () => {
  it("the guard's transaction holding its connection through a hang ended by a cut: it fails, nothing uncaught, the next statement works", async () => {
    const logs: string[] = [];
    const sql = await openSqlClient({ databaseUrl: db.proxy.urlFor(db.url), poolSize: 2 });
    // The guard's pool logs through console.warn by default (its opener has no log of its own).
    vi.spyOn(console, "warn").mockImplementation((line: string) => logs.push(line));
    try {
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const transaction = sql.transaction(async (tx) => {
        inside();
        // Work inside the transaction outlives the hang (a long statement, a slow caller): the client stays held.
        await sleep(1_500);
        await tx.query("SELECT 1");
      });
      const outcome = transaction.then(
        () => "committed",
        (error: unknown) => String(error),
      );
      await entered;
      db.proxy.mode("hang");
      await sleep(300);
      db.proxy.mode("pass", { cut: true });
      expect(await outcome).toMatch(/Connection terminated|not queryable/i);
      await sleep(100);
      expect(db.uncaught).toEqual([]);
      expect(logs.filter((line) => /Connection terminated unexpectedly/.test(line))).toHaveLength(1);
      expect(await sql.query<{ one: number }>("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      await sql.close();
    }
  });

  it("logs once, not per error: a burst of lost connections is one line, then one a minute with the count kept quiet", () => {
    const lines: string[] = [];
    let now = 0;
    const client = new pg.Client();
    listenForPgErrors(client, "a test client", (line) => lines.push(line), () => now);
    for (let i = 0; i < 5; i += 1) client.emit("error", new Error("Connection terminated unexpectedly"));
    now = 61_000;
    client.emit("error", new Error("read ECONNRESET"));
    expect(lines).toEqual([
      "database: a connection of a test client ended: Connection terminated unexpectedly; the next statement connects again",
      "database: a connection of a test client ended: read ECONNRESET (and 4 more since the last line); the next statement connects again",
    ]);
  });

  it("the Stripe budget gives up a connection left busy by a hang: after the hang, the next sync answers at once", async () => {
    const budget = await openFleetBudget({ databaseUrl: db.proxy.urlFor(db.url), account: "acct-hang", member: "a" });
    const report = [{ limiter: accountLimiter, admitted: 1, throttled: 0, saturated: false }];
    try {
      await budget.sync(report, 200);
      db.proxy.mode("hang");
      await expect(budget.sync(report, 200)).rejects.toThrow(/timeout/i);
      // The hang ends without a cut: the statements it swallowed never reach the server, so a connection still
      // waiting on one never answers again.
      db.proxy.mode("pass");
      const started = performance.now();
      await budget.sync(report, 200);
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      await budget.close();
    }
  }, 30_000);
});
