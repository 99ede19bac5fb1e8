import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";
import { createScratchDatabase, testDatabaseUrl } from "./databases.js";
import { describeGuard } from "./guard-suite.js";

async function queryUrl(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

if (testDatabaseUrl) {
  const serverUrl = testDatabaseUrl;
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  beforeAll(async () => {
    database = await createScratchDatabase(serverUrl);
  });
  afterAll(async () => {
    await database?.drop();
  });

  describeGuard("PostgreSQL", () => ({
    connection: () => ({ databaseUrl: database.url }),
    query: (sql) => queryUrl(database.url, sql),
    competingGuards: 4,
    async scratch() {
      const fresh = await createScratchDatabase(serverUrl);
      return { connection: { databaseUrl: fresh.url }, query: (sql) => queryUrl(fresh.url, sql), drop: fresh.drop };
    },
  }));
} else {
  describe.skip("BillingGuard on PostgreSQL (TEST_DATABASE_URL not set)", () => {});
}
