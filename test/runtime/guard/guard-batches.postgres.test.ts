import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";
import { describeGuardBatches } from "./guard-batches-suite.js";

let database: Awaited<ReturnType<typeof createScratchDatabase>>;
beforeAll(async () => {
  database = await createScratchDatabase(await postgresServerUrl());
});
afterAll(async () => {
  await database?.drop();
});

describeGuardBatches("PostgreSQL", () => ({
  connection: () => ({ databaseUrl: database.url }),
  competingGuards: 4,
  async query(sql) {
    const client = new pg.Client({ connectionString: database.url });
    client.on("error", () => {});
    await client.connect();
    try {
      return (await client.query<Record<string, unknown>>(sql)).rows;
    } finally {
      await client.end();
    }
  },
}));
