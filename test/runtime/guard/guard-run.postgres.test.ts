import { afterAll, beforeAll } from "vitest";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";
import { describeGuardRun } from "./guard-run-suite.js";

let database: Awaited<ReturnType<typeof createScratchDatabase>>;
beforeAll(async () => {
  database = await createScratchDatabase(await postgresServerUrl());
});
afterAll(async () => {
  await database?.drop();
});
describeGuardRun("PostgreSQL", () => ({ connection: () => ({ databaseUrl: database.url }), competingGuards: 4 }));
