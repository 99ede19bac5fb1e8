import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll } from "vitest";
import { describeGuard } from "./guard-suite.js";

// One embedded database for the file (PGlite takes seconds to start); every test uses its own customers.
let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db?.close();
});

describeGuard("PGlite", () => ({
  connection: () => ({ pglite: db }),
  query: async (sql) => (await db.query<Record<string, unknown>>(sql)).rows,
}));
