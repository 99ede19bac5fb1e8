// The guard's schema, versioned: the numbered files in sql/ (migration-files.ts), applied in order and recorded in
// chargeguard_schema_version. Migrations run under a transaction-scoped advisory lock, so replicas that start
// together apply each step once and the rest wait, then find it done.
import { readMigrationFiles } from "./migration-files.js";
import { oneRecordTable, oneRecordTableVersion } from "./migration-one-table.js";
import type { Migration } from "./migration.js";
import type { SqlClient } from "./sql-client.js";

export { overCapSqlState } from "./migration.js";

/** Arbitrary, fixed: the advisory lock id that serialises chargeguard migrations on one database. */
const migrationLockId = 7_372_020_261;

let steps: readonly Migration[] | undefined;

/**
 * The steps in order, read from sql/ on first use, so a program that imports the runtime for its other parts reads
 * no file. Schema 5 runs a TypeScript data move before its file (migration-one-table.ts says why); every other step
 * is its file alone, so a new step is one more numbered file.
 */
export function guardMigrations(): readonly Migration[] {
  steps ??= readMigrationFiles().map((file) =>
    file.version === oneRecordTableVersion
      ? oneRecordTable(file)
      : { version: file.version, description: file.description, statements: file.statements },
  );
  return steps;
}

/** Applies the migrations not yet applied; safe to call from many processes at once. Returns the versions applied. */
export async function migrate(client: SqlClient, now: Date): Promise<number[]> {
  return client.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [migrationLockId]);
    await tx.query(`CREATE TABLE IF NOT EXISTS chargeguard_schema_version (
      version     integer     PRIMARY KEY,
      description text        NOT NULL,
      applied_at  timestamptz NOT NULL
    )`);
    const rows = await tx.query<{ version: number }>("SELECT version FROM chargeguard_schema_version");
    const applied = new Set(rows.map((row) => Number(row.version)));
    const newlyApplied: number[] = [];
    for (const migration of guardMigrations()) {
      if (applied.has(migration.version)) continue;
      for (const step of migration.statements) {
        if (typeof step === "string") await tx.query(step);
        else await step(tx, now);
      }
      await tx.query("INSERT INTO chargeguard_schema_version (version, description, applied_at) VALUES ($1, $2, $3)", [
        migration.version,
        migration.description,
        now,
      ]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
