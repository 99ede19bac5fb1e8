// What operators watch in the guard's tables: how many billings are pending and how old the oldest is (a pending
// billing older than the reconcile threshold needs the reconciler), and each recent period's spend against its cap.
// Read by the telemetry gauges once per export (by every replica), so it reads the spend ledger (a row per period
// and currency) and the pending records through their partial indexes: never a scan of the billed records.
import type { SqlExecutor } from "./sql-client.js";

export interface PeriodCurrencySpend {
  billingPeriod: string;
  currency: string;
  /** The period's cap in minor units; null: none. */
  limitCents: number | null;
  /** Charged plus reserved (claimed, not yet charged or declined): what the cap counts. */
  usageCents: number;
}

export interface GuardHealth {
  pendingBillings: number;
  /** Seconds since the oldest pending billing was claimed; null when none is pending. */
  oldestPendingAgeSeconds: number | null;
  spend: PeriodCurrencySpend[];
}

export async function readGuardHealth(
  sql: SqlExecutor,
  now: Date,
  options: { periods: number; capFor: (billingPeriod: string, currency: string) => number | undefined },
): Promise<GuardHealth> {
  if (!Number.isSafeInteger(options.periods) || options.periods <= 0) {
    throw new TypeError(`periods must be a positive integer, got ${options.periods}`);
  }
  type PendingRow = { pending: string | number; oldest: Date | string | null };
  type SpendRow = { billing_period: string; currency: string; used_cents: string | number; cap_cents: string | number | null };
  const [pendingRows, spendRows] = await Promise.all([
    // Through the partial index of pending records.
    sql.query<PendingRow>(`SELECT count(*) AS pending, min(created_at) AS oldest FROM guard_records WHERE state = 'pending'`),
    // The ledger the cap is enforced on: reserved plus charged per (period, currency), for every flow; a few rows.
    sql.query<SpendRow>(
      `SELECT billing_period, currency, committed_cents AS used_cents, cap_cents
         FROM spend_ledger
        WHERE billing_period IN (SELECT DISTINCT billing_period FROM spend_ledger ORDER BY billing_period DESC LIMIT $1)
        ORDER BY billing_period, currency`,
      [options.periods],
    ),
  ]);
  const [pending] = pendingRows;
  const oldest = pending?.oldest == null ? null : new Date(pending.oldest);
  return {
    pendingBillings: Number(pending?.pending ?? 0),
    oldestPendingAgeSeconds: oldest === null ? null : Math.max(0, (now.getTime() - oldest.getTime()) / 1000),
    spend: spendRows.map((row) => {
      const cap = options.capFor(row.billing_period, row.currency) ?? (row.cap_cents == null ? null : Number(row.cap_cents));
      return { billingPeriod: row.billing_period, currency: row.currency, limitCents: cap, usageCents: Number(row.used_cents) };
    }),
  };
}
