// A period's spend as the ledger and the records tell it: the cap, what is reserved by claims in flight, and what
// was charged (done records).
import type { SpendCapFor } from "./spend-caps.js";
import type { SqlExecutor } from "./sql-client.js";

/** One currency's spend in a period, in its minor units (or, asked without a currency, all of them summed). */
export interface PeriodSpend {
  /** The cap in force at the last reservation; null: none (or, summed over currencies, caps that differ). */
  capCents: number | null;
  /** Claimed and not yet done or declined. */
  reservedCents: number;
  chargedCents: number;
}

/**
 * A period's cap and spend in one currency (its minor units); without a currency, every currency's summed (a
 * report only: caps are per currency). Charged is summed over the records: a reporting call, not the hot path.
 */
export async function readPeriodSpend(sql: SqlExecutor, capFor: SpendCapFor, billingPeriod: string, currency?: string): Promise<PeriodSpend> {
  type Row = { caps: number; cap_cents: string | number | null; committed_cents: string | number | null; charged_cents: string | number };
  const [row] = await sql.query<Row>(
    `SELECT (SELECT count(DISTINCT cap_cents) FROM spend_ledger WHERE billing_period = $1 AND ($2::text IS NULL OR currency = $2)) AS caps,
            (SELECT max(cap_cents) FROM spend_ledger WHERE billing_period = $1 AND ($2::text IS NULL OR currency = $2)) AS cap_cents,
            (SELECT sum(committed_cents) FROM spend_ledger WHERE billing_period = $1 AND ($2::text IS NULL OR currency = $2)) AS committed_cents,
            (SELECT COALESCE(SUM(spend_amount), 0) FROM guard_records
              WHERE spend_period = $1 AND ($2::text IS NULL OR spend_currency = $2) AND state = 'done') AS charged_cents`,
    [billingPeriod, currency ?? null],
  );
  const chargedCents = Number(row?.charged_cents ?? 0);
  const recorded = row?.cap_cents == null || Number(row.caps) > 1 ? null : Number(row.cap_cents);
  const cap = currency === undefined ? recorded : (capFor(billingPeriod, currency) ?? recorded);
  return { capCents: cap, reservedCents: Number(row?.committed_cents ?? 0) - chargedCents, chargedCents };
}
