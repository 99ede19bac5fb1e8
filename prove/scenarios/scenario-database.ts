// A degraded-database scenario's PostgreSQL: a fresh database per contender on the server the run was given, the
// sandbox's fault proxy in front of it (the consumers connect through the proxy; the harness reads the records
// directly), and a reader with PGlite's `query` shape for the judgement. Dropped at cleanup.
import pg from "pg";
import { startDatabaseFaultProxy, type DatabaseFaultProxy } from "../../sandbox/database/index.js";
import type { BoundedCleanup } from "../contender/bounded-cleanup.js";
import type { SqlReader } from "../measure/observe.js";

export interface ScenarioDatabase {
  /** What the consumers connect to: the fresh database, through the fault proxy. */
  consumerUrl: string;
  /** The fresh database itself (the reconciler's, the harness's). */
  directUrl: string;
  proxy: DatabaseFaultProxy;
  reader: SqlReader;
}

let created = 0;

export async function startScenarioDatabase(serverUrl: string, label: string, cleanup: BoundedCleanup): Promise<ScenarioDatabase> {
  const name = `prove_${label.replace(/[^a-z0-9]+/gi, "_").toLowerCase()}_${process.pid}_${Date.now().toString(36)}_${created++}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const directUrl = withDatabase(serverUrl, name);
  cleanup.add("scenario database", async () => {
    const dropper = new pg.Client({ connectionString: serverUrl });
    await dropper.connect();
    try {
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  });
  const target = new URL(directUrl);
  const proxy = await startDatabaseFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
  cleanup.add("database fault proxy", () => proxy.stop());
  const pool = new pg.Pool({ connectionString: directUrl, max: 2 });
  pool.on("error", () => {});
  cleanup.add("harness database pool", () => pool.end());
  const reader: SqlReader = { query: async <Row>(sql: string) => ({ rows: (await pool.query(sql)).rows as Row[] }) };
  return { consumerUrl: proxy.urlFor(directUrl), directUrl, proxy, reader };
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
