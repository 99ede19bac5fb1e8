import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll } from "vitest";
import { describeGuardBatches } from "./guard-batches-suite.js";

// One embedded database for the file (PGlite takes seconds to start); every test uses its own identities.
let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db?.close();
});

describeGuardBatches("PGlite", () => ({
  connection: () => ({ pglite: db }),
  competingGuards: 1,
  query: async (sql) => (await db.query<Record<string, unknown>>(sql)).rows,
}));
