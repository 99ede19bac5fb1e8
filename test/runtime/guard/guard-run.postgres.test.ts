import { afterAll, beforeAll, describe } from "vitest";
import { createScratchDatabase, testDatabaseUrl } from "./databases.js";
import { describeGuardRun } from "./guard-run-suite.js";

if (testDatabaseUrl) {
  const serverUrl = testDatabaseUrl;
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  beforeAll(async () => {
    database = await createScratchDatabase(serverUrl);
  });
  afterAll(async () => {
    await database?.drop();
  });
  describeGuardRun("PostgreSQL", () => ({ connection: () => ({ databaseUrl: database.url }), competingGuards: 4 }));
} else {
  describe.skip("Guard.run on PostgreSQL (TEST_DATABASE_URL not set)", () => {});
}
