// The database fault proxy with the real `pg` client against real PostgreSQL: pass, drop, refuse, hang, a hang that
// ends in cut connections, idle connections cut (reset or silently).
import { once } from "node:events";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDatabaseFaultProxy, type DatabaseFaultProxy } from "../../../sandbox/database/index.js";
import { postgresServerUrl } from "../../runtime/guard/databases.js";

// Never skipped: without TEST_DATABASE_URL a server is started for this process, or the tests fail saying why.
let serverUrl: string;
beforeAll(async () => {
  serverUrl = await postgresServerUrl();
});

let proxy: DatabaseFaultProxy;
beforeAll(async () => {
  const url = new URL(serverUrl);
  proxy = await startDatabaseFaultProxy({ host: url.hostname, port: Number(url.port || 5432) });
});
afterAll(() => proxy?.stop());

const client = () => {
  const made = new pg.Client({ connectionString: proxy.urlFor(serverUrl), connectionTimeoutMillis: 1_000, query_timeout: 1_000 });
  made.on("error", () => {});
  return made;
};

describe("database fault proxy", () => {
  it("passes, drops the open connections, refuses new ones, hangs", async () => {
    const open = client();
    await open.connect();
    expect((await open.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    proxy.drop();
    await expect(open.query("SELECT 1")).rejects.toThrow();
    await open.end().catch(() => undefined);

    proxy.mode("refuse");
    const refused = client();
    await expect(refused.connect()).rejects.toThrow();
    expect(proxy.stats.refused).toBeGreaterThanOrEqual(1);

    proxy.mode("hang");
    const hung = client();
    await expect(hung.connect()).rejects.toThrow(/timeout/i);
    await hung.end().catch(() => undefined);

    proxy.mode("pass");
    const again = client();
    await again.connect();
    expect((await again.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await again.end();
  });

  it("ends a hang by cutting every connection: a client held through it gets 'Connection terminated unexpectedly', new ones pass", async () => {
    const held = client();
    await held.connect();
    const cutBefore = proxy.stats.cut;
    proxy.mode("hang");
    const hung = held.query("SELECT 1").then(
      () => "answered",
      (failure: unknown) => String(failure),
    );
    const terminated = once(held, "error");
    proxy.mode("pass", { cut: true });
    const [error] = (await terminated) as [Error];
    expect(error.message).toMatch(/Connection terminated unexpectedly/);
    expect(await hung).toMatch(/Connection terminated unexpectedly/);
    expect(proxy.stats.cut - cutBefore).toBe(1);
    const again = client();
    await again.connect();
    expect((await again.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await again.end();
  });

  it("cuts idle connections with a reset: an idle client learns at once, a busy one is left alone", async () => {
    const before = proxy.stats.idleCut;
    const idle = client();
    const busy = client();
    await Promise.all([idle.connect(), busy.connect()]);
    const cut = once(idle, "error");
    proxy.idleCut({ afterMs: 300 });
    try {
      const started = Date.now();
      // The busy one speaks every 100 ms, well inside the idle limit.
      while (Date.now() - started < 1_000) {
        await busy.query("SELECT 1");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const [error] = (await cut) as [Error];
      expect(error.message).toMatch(/ECONNRESET/);
      expect((await busy.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      expect(proxy.stats.idleCut - before).toBe(1);
    } finally {
      proxy.idleCut(undefined);
      await busy.end();
      await idle.end().catch(() => undefined);
    }
  });

  it("cuts idle connections silently: the client's next query goes nowhere and only its own timeout ends it", async () => {
    const forgotten = client();
    await forgotten.connect();
    proxy.idleCut({ afterMs: 200, silently: true });
    try {
      await new Promise((resolve) => setTimeout(resolve, 600));
      await expect(forgotten.query("SELECT 1")).rejects.toThrow(/timeout/i);
    } finally {
      proxy.idleCut(undefined);
      await forgotten.end().catch(() => undefined);
    }
    const fresh = client();
    await fresh.connect();
    expect((await fresh.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await fresh.end();
  });

  it("refuses an idle limit that is not a positive number of milliseconds, naming it", () => {
    expect(() => proxy.idleCut({ afterMs: 0 })).toThrow(/afterMs must be a positive number/);
  });
});
