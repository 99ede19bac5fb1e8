import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll } from "vitest";
import { describeRefusedUnderKey } from "./refused-under-key-suite.js";

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db?.close();
});

describeRefusedUnderKey("PGlite", () => ({ connection: () => ({ pglite: db }) }));
