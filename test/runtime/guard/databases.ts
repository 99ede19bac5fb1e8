// Where the guard suite runs: embedded PGlite, and a throw-away database on a real PostgreSQL server: the one
// `scripts/with-postgres.mjs` started (TEST_DATABASE_URL), else one the same script starts for this test process
// (`postgresServerUrl`). Never a skip: no server at all fails the PostgreSQL tests, saying why.
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { Guard } from "../../../runtime/guard/guard.js";
import { postgresServerUrl } from "../../support/postgres-server.js";

export { postgresServerUrl } from "../../support/postgres-server.js";

/** A fresh database on the test server, so migrations start from nothing and runs never see each other's rows. */
export async function createScratchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `chargeguard_${randomUUID().replaceAll("-", "")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A guard on each store the suites run on: embedded PGlite and a scratch database on the PostgreSQL server. */
export async function openGuardPair(options: { periodCapCents: number }): Promise<{ stores: Record<"pglite" | "postgres", Guard>; close(): Promise<void> }> {
  const scratch = await createScratchDatabase(await postgresServerUrl());
  const pglite = await PGlite.create();
  const stores = {
    pglite: await Guard.open({ pglite, ...options }),
    postgres: await Guard.open({ databaseUrl: scratch.url, ...options }),
  };
  return {
    stores,
    async close() {
      await Promise.all(Object.values(stores).map((guard) => guard.close()));
      await pglite.close();
      await scratch.drop();
    },
  };
}
