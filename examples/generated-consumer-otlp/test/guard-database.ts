// Where the tests keep the guard's records: the PostgreSQL that TEST_DATABASE_URL names (a throw-away database: the
// guard creates its tables there), else in memory. A project generated with --db postgres runs on PostgreSQL in
// production, so its run says in one line how to test on one (README.md, "Develop", shows a local server).
import { randomUUID } from "node:crypto";
import { settings } from "../src/settings.js";

const url = process.env.TEST_DATABASE_URL?.trim() || undefined;

if (url === undefined && settings.database === "postgres") {
  console.warn("these tests keep the guard's records in memory: TEST_DATABASE_URL=postgres://... npm test runs them on PostgreSQL (README.md, Develop)");
}

/** The consumer's database options for the tests. */
export const guardDatabase = (): { databaseUrl: string } | { inMemory: true } => (url === undefined ? { inMemory: true } : { databaseUrl: url });

/**
 * Each run's own prefix for the events' identities: a database kept between runs already holds the last run's
 * billings, and the same identity with another Stripe customer would be refused as a mismatch.
 */
export const runPrefix = url === undefined ? "test" : `test-${randomUUID().slice(0, 8)}`;
