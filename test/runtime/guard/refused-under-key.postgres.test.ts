import { afterAll, beforeAll } from "vitest";
import type { GuardStore } from "../../../runtime/guard/guard-store.js";
import { CircuitBreaker } from "../../../runtime/resilience/circuit-breaker.js";
import { watchDatabase } from "../../../runtime/resilience/database-watch.js";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";
import { describeRefusedUnderKey } from "./refused-under-key-suite.js";

let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let breaker: CircuitBreaker;
beforeAll(async () => {
  database = await createScratchDatabase(await postgresServerUrl());
  breaker = new CircuitBreaker({ dependency: "database", probe: async () => {}, log: () => {} });
});
afterAll(async () => {
  breaker?.close();
  await database?.drop();
});
// Behind the database's breaker, as the consumer runs PostgreSQL: its wrapper must carry forget's ground too.
describeRefusedUnderKey("PostgreSQL", () => ({ connection: () => ({ databaseUrl: database.url }), port: (guard) => watchDatabase(guard as GuardStore, breaker) }));
