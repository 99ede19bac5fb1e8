// A project generated with --db postgres runs its own consumer tests on PostgreSQL when TEST_DATABASE_URL names one
// (its test/guard-database.ts), as its README says: the generated project's `vitest run` against a real server, then
// its billings read back from the guard's table there. Without the variable its run says in one line how.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { scaffoldConsumer } from "../../templates/index.js";
import { checkout, ensureBuilt, inProject, run, userEnv } from "../support/generated-project.js";
import { postgresServerUrl } from "../support/postgres-server.js";

let scratch: string;
let project: string;
let databaseUrl: string;

beforeAll(async () => {
  await ensureBuilt();
  databaseUrl = await postgresServerUrl();
  // Inside the checkout (.tmp is ignored by git): the project resolves chargeguard, vitest and the SDKs from it.
  await mkdir(path.join(checkout, ".tmp"), { recursive: true });
  scratch = await mkdtemp(path.join(checkout, ".tmp", "postgres-consumer-"));
  project = (await scaffoldConsumer({ directory: path.join(scratch, "pg-billing"), name: "pg-billing", queue: "usage-billing", database: "postgres" })).directory;
}, 900_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

it("runs the generated consumer's tests on the PostgreSQL TEST_DATABASE_URL names: its billings are in that database", async () => {
  const { stdout, stderr } = await run("npx", ["vitest", "run", "test/consumer.test.ts"], {
    ...inProject(project, 240_000),
    env: { ...userEnv, TEST_DATABASE_URL: databaseUrl },
  });
  expect(stdout).toMatch(/6 passed/);
  expect(stdout + stderr).not.toContain("records in memory");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ record_key: string }>(`SELECT record_key FROM guard_records WHERE record_key LIKE '%"test-________-%'`);
    // This run's identities (test/guard-database.ts's prefix): five of the six cases bill (the malformed events are
    // dead-lettered before the guard).
    expect(rows.length).toBeGreaterThanOrEqual(5);
  } finally {
    await client.end();
  }
}, 240_000);

it("without TEST_DATABASE_URL, says in one line how to run them on PostgreSQL", async () => {
  const { stdout, stderr } = await run("npx", ["vitest", "run", "test/consumer.test.ts"], inProject(project, 240_000));
  expect(stdout).toMatch(/6 passed/);
  expect(stdout + stderr).toContain("these tests keep the guard's records in memory: TEST_DATABASE_URL=postgres://... npm test runs them on PostgreSQL (README.md, Develop)");
}, 240_000);
