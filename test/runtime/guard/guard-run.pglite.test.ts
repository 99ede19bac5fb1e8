import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll } from "vitest";
import { describeGuardRun } from "./guard-run-suite.js";

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db?.close();
});

describeGuardRun("PGlite", () => ({ connection: () => ({ pglite: db }) }));
