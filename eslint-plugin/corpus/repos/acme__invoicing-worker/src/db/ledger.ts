import { randomUUID } from "node:crypto";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });

export interface LedgerLine {
  customerId: string;
  period: string;
  amountCents: number;
}

export async function recordLine(line: LedgerLine): Promise<string> {
  const idempotencyKey = randomUUID();
  await pool.query(
    "insert into ledger_lines (id, customer_id, period, amount_cents, idempotency_key) values ($1, $2, $3, $4, $5)",
    [randomUUID(), line.customerId, line.period, line.amountCents, idempotencyKey],
  );
  return idempotencyKey;
}

export async function linesFor(period: string): Promise<LedgerLine[]> {
  const { rows } = await pool.query("select customer_id, period, amount_cents from ledger_lines where period = $1", [period]);
  return rows.map((row) => ({ customerId: row.customer_id, period: row.period, amountCents: row.amount_cents }));
}
