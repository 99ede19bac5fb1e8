// Schema 5, one record table: its data move in TypeScript, then sql/000005.sql. The default PaymentIntent consumer's
// billing_records rows move into guard_records, where every other flow already kept its records, so one guard, one
// reconciler and one set of statements serve all.
//
// A rollout runs old and new replicas side by side. The move happens in the migration's transaction with
// billing_records locked, so no old replica writes it meanwhile; then the table is renamed (kept as
// billing_records_v4 for the audit trail) and the old claim functions refuse with CG002. An old replica's claim or
// record then fails as a database error, which it treats as an unknown outcome: a scheduled retry that a new replica
// takes. A billing an old replica had claimed keeps its lease in guard_records, so a new replica waits for it to
// lapse and retries with the same idempotency key, which Stripe answers with the same object: nothing is charged
// twice, nothing is lost. The spend ledger already counts both tables, so no reservation moves.
import { canonicalJson } from "../core/canonical-json.js";
import { identify } from "./guarded-run.js";
import type { MigrationFile } from "./migration-files.js";
import type { Migration } from "./migration.js";
import type { SqlExecutor } from "./sql-client.js";

/** The scope a record was keyed under: `stableKey` keys are `<scope>:v1:<sha256>`; anything else was the default's. */
const stableKeyScope = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63}):v1:[0-9a-f]{64}$/;
const rowsPerBatch = 500;

interface BillingRecordRow {
  customer_id: string;
  billing_period: string;
  state: "pending" | "charged" | "completed" | "declined";
  idempotency_key: string;
  amount_cents: string | number;
  currency: string;
  payment_intent_id: string | null;
  attempts: string | number;
  locked_until: Date | string | null;
  lock_owner: string | null;
  lease_token: string | null;
  request: Record<string, unknown> | string;
  decline_reason: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  [column: string]: unknown;
}

/** A billing_records row as the guard_records row the one guard would have written for the same event. */
function asGuardRow(row: BillingRecordRow): unknown[] {
  const scope = stableKeyScope.exec(row.idempotency_key)?.[1] ?? "billing";
  const key = { customerId: row.customer_id, billingPeriod: row.billing_period };
  const payload = typeof row.request === "string" ? (JSON.parse(row.request) as Record<string, unknown>) : row.request;
  const spend = { period: row.billing_period, currency: row.currency, amount: Number(row.amount_cents) };
  const { fingerprint } = identify({ scope, key, payload, spend, flow: "payment-intent", idempotencyKey: row.idempotency_key });
  const state = row.state === "charged" || row.state === "completed" ? "done" : row.state;
  return [
    scope, canonicalJson(key), state, row.idempotency_key, fingerprint, JSON.stringify(payload), spend.period, spend.currency,
    spend.amount, row.payment_intent_id, row.decline_reason, Number(row.attempts), row.locked_until, row.lock_owner,
    row.lease_token, row.created_at, row.updated_at,
  ];
}

async function moveBillingRecords(tx: SqlExecutor): Promise<void> {
  for (let offset = 0; ; offset += rowsPerBatch) {
    const rows = await tx.query<BillingRecordRow>(
      `SELECT * FROM billing_records ORDER BY billing_period, customer_id LIMIT $1 OFFSET $2`,
      [rowsPerBatch, offset],
    );
    if (rows.length === 0) return;
    const columns = rows.map(asGuardRow);
    const column = (at: number) => columns.map((values) => values[at]);
    await tx.query(
      `INSERT INTO guard_records (scope, record_key, flow, state, idempotency_key, fingerprint, payload, spend_period,
                                  spend_currency, spend_amount, object_id, decline_reason, attempts, locked_until,
                                  lock_owner, lease_token, created_at, updated_at)
       SELECT scope, record_key, 'payment-intent', state, idempotency_key, fingerprint, payload, spend_period,
              spend_currency, spend_amount, object_id, decline_reason, attempts, locked_until, lock_owner, lease_token,
              created_at, updated_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::text[], $8::text[],
                     $9::bigint[], $10::text[], $11::text[], $12::int[], $13::timestamptz[], $14::text[], $15::text[],
                     $16::timestamptz[], $17::timestamptz[])
           AS m(scope, record_key, state, idempotency_key, fingerprint, payload, spend_period, spend_currency,
                spend_amount, object_id, decline_reason, attempts, locked_until, lock_owner, lease_token, created_at,
                updated_at)
       ON CONFLICT (scope, record_key) DO NOTHING`,
      Array.from({ length: 17 }, (_, at) => column(at)),
    );
  }
}

export const oneRecordTableVersion = 5;

/**
 * Schema 5: billing_records locked, its rows moved (in TypeScript: each fingerprint is the guard's own), then
 * sql/000005.sql in the same transaction (the rename, the old claim functions refusing, the batched claim).
 */
export function oneRecordTable(file: MigrationFile): Migration {
  return {
    version: file.version,
    description: file.description,
    statements: [`LOCK TABLE billing_records IN ACCESS EXCLUSIVE MODE`, moveBillingRecords, ...file.statements],
  };
}
