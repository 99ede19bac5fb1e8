// Where the guard suite runs: embedded PGlite, and a throw-away database on the real PostgreSQL server that
// `scripts/with-postgres.mjs` starts (TEST_DATABASE_URL). In CI a missing server is a failure, not a skip.
import { randomUUID } from "node:crypto";
import pg from "pg";

export const testDatabaseUrl = process.env.TEST_DATABASE_URL;

if (!testDatabaseUrl) {
  if (process.env.CI) {
    throw new Error(
      "TEST_DATABASE_URL is not set but CI is: the guard must be tested on real PostgreSQL (run under scripts/with-postgres.mjs)",
    );
  }
  console.warn(
    "SKIPPING the PostgreSQL variant of the guard tests: TEST_DATABASE_URL is not set " +
      "(run `node scripts/with-postgres.mjs -- npx vitest run test/runtime/guard`)",
  );
}

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
