// What operators watch in the guard's tables: how many billings are pending and how old the oldest is (a pending
// billing older than the reconcile threshold needs the reconciler), and each recent period's spend against its cap.
// Read by the telemetry gauges once per export, so it is two aggregate statements, never a scan per billing.
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
    sql.query<PendingRow>(`SELECT count(*) AS pending, min(created_at) AS oldest FROM billing_records WHERE state = 'pending'`),
    sql.query<SpendRow>(
      `WITH periods AS (SELECT DISTINCT billing_period FROM billing_records ORDER BY billing_period DESC LIMIT $1)
       SELECT r.billing_period, r.currency,
              COALESCE(SUM(r.amount_cents) FILTER (WHERE r.state IN ('pending', 'charged', 'completed')), 0) AS used_cents,
              MAX(l.cap_cents) AS cap_cents
         FROM billing_records r
         JOIN periods p ON p.billing_period = r.billing_period
         LEFT JOIN spend_ledger l ON l.billing_period = r.billing_period AND l.currency = r.currency
        GROUP BY r.billing_period, r.currency
        ORDER BY r.billing_period, r.currency`,
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
