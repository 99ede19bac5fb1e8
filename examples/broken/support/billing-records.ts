// The seeds' own `billing_records` table (unique per customer and period), on the harness's shared PGlite, a
// PostgreSQL URL, or an in-memory PGlite when neither is given. Deliberately simple: no lease, no states, no
// spend ledger; that is what chargeguard's guard adds.
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { ConsumerContext } from "../../../runtime/index.js";

export interface BillingDatabase {
  query<Row extends object>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  close(): Promise<void>;
}

const createTable = `
  CREATE TABLE IF NOT EXISTS billing_records (
    customer_id     text        NOT NULL,
    billing_period  text        NOT NULL,
    charge_id       text,
    amount_cents    integer     NOT NULL,
    status          text        NOT NULL,
    idempotency_key text,
    error           text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (customer_id, billing_period)
  )`;

// Two replicas creating the table at the same instant on a real server can collide on the catalog (the table, its
// row type: 42710 duplicate_object).
const alreadyCreated = new Set(["23505", "42P07", "42710"]);

export async function openBillingDatabase(context: ConsumerContext): Promise<BillingDatabase> {
  const database = connect(context);
  try {
    await database.query(createTable);
  } catch (error) {
    if (!alreadyCreated.has((error as { code?: string }).code ?? "")) {
      await database.close();
      throw error;
    }
  }
  return database;
}

function connect(context: ConsumerContext): BillingDatabase {
  if (context.pglite) {
    const shared = context.pglite;
    // The harness owns the shared PGlite: the replicas never close it.
    return { query: (sql, params) => shared.query(sql, params), close: async () => {} };
  }
  if (context.databaseUrl) {
    const pool = new pg.Pool({ connectionString: context.databaseUrl, max: 4 });
    // An idle connection reset by a failover must not end the process (the seeds' drivers do not crash on it either):
    // the failure these consumers show is in their billing, not in an unhandled 'error' event.
    pool.on("error", () => {});
    return {
      query: async <Row extends object>(sql: string, params?: unknown[]) =>
        (await pool.query(sql, params)) as unknown as { rows: Row[] },
      close: () => pool.end(),
    };
  }
  const ownDatabase = new PGlite();
  return { query: (sql, params) => ownDatabase.query(sql, params), close: () => ownDatabase.close() };
}
