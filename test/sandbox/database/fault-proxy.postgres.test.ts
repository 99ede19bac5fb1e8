// The database fault proxy with the real `pg` client against real PostgreSQL: pass, drop, refuse, hang.
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
});
