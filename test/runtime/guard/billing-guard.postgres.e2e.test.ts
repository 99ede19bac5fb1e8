import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";
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

{
  let serverUrl: string;
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  beforeAll(async () => {
    serverUrl = await postgresServerUrl();
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
}
