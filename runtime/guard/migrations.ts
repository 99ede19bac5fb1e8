// The guard's schema, versioned. Migrations run under a transaction-scoped advisory lock, so replicas that
// start together apply each step once and the rest wait, then find it done.
import type { SqlClient } from "./sql-client.js";

/** Arbitrary, fixed: the advisory lock id that serialises chargeguard migrations on one database. */
const migrationLockId = 7_372_020_261;

interface Migration {
  version: number;
  description: string;
  statements: string[];
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: "billing_records and spend_ledger",
    statements: [
      `CREATE TABLE billing_records (
        customer_id      text        NOT NULL CHECK (length(customer_id) BETWEEN 1 AND 255),
        billing_period   text        NOT NULL CHECK (length(billing_period) BETWEEN 1 AND 64),
        state            text        NOT NULL CHECK (state IN ('pending', 'charged', 'completed', 'declined')),
        idempotency_key  text        NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
        fingerprint      text        NOT NULL,
        amount_cents     bigint      NOT NULL CHECK (amount_cents > 0),
        currency         text        NOT NULL,
        payment_intent_id text,
        attempts         integer     NOT NULL DEFAULT 1,
        locked_until     timestamptz,
        lock_owner       text,
        lease_token      text,
        request          jsonb       NOT NULL,
        decline_reason   text,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL,
        PRIMARY KEY (customer_id, billing_period),
        CHECK (state = 'pending' OR lease_token IS NULL),
        CHECK (state NOT IN ('charged', 'completed') OR payment_intent_id IS NOT NULL)
      )`,
      `CREATE INDEX billing_records_pending_lease ON billing_records (locked_until) WHERE state = 'pending'`,
      `CREATE TABLE spend_ledger (
        billing_period  text        PRIMARY KEY,
        cap_cents       bigint      CHECK (cap_cents IS NULL OR cap_cents >= 0),
        reserved_cents  bigint      NOT NULL DEFAULT 0 CHECK (reserved_cents >= 0),
        charged_cents   bigint      NOT NULL DEFAULT 0 CHECK (charged_cents >= 0),
        updated_at      timestamptz NOT NULL
      )`,
    ],
  },
];

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
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.statements) await tx.query(statement);
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
