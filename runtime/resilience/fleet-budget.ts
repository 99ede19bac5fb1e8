// The Stripe budget shared by every replica on one Stripe account, through the PostgreSQL the replicas already share:
// one row per (account, limiter) holding the fleet's rate, one row per replica as its heartbeat. Each replica syncs
// once a period, off the message path, on a connection of its own (never one a delivery waits for): its counts go in,
// the fleet's AIMD step is taken at most once a period per limiter (whoever syncs first), and the rates and the live
// replicas come back. The step is `nextFleetRate`, the same rule a lone replica follows.
import { createHash } from "node:crypto";
import pg from "pg";
import { connectionParams, type DatabasePassword } from "../guard/pg-client.js";
import { accountLimiter, nextFleetRate, type FleetRates, type FleetShare, type LimiterReport } from "./rate-governor.js";

export interface FleetBudgetOptions {
  databaseUrl: string;
  password?: DatabasePassword;
  /** Which Stripe account (any stable label; the key's hash by default): replicas of every consumer on it share. */
  account: string;
  /** This replica's id (the guard's lease owner). */
  member: string;
  /** The account's ceiling for the fleet, requests per second. */
  ceilingPerSecond?: number;
}

const schema = `
CREATE TABLE IF NOT EXISTS chargeguard_stripe_budget (
  account text NOT NULL, limiter text NOT NULL, rate double precision, changed_at bigint NOT NULL,
  PRIMARY KEY (account, limiter));
CREATE TABLE IF NOT EXISTS chargeguard_stripe_budget_members (
  account text NOT NULL, member text NOT NULL, seen_at bigint NOT NULL, admitted_per_second double precision NOT NULL,
  PRIMARY KEY (account, member));`;

/** A label for a Stripe key that is not the key: its hash. */
export function accountLabel(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
}

export async function openFleetBudget(options: FleetBudgetOptions): Promise<FleetShare> {
  const base = options.password === undefined ? { connectionString: options.databaseUrl } : { ...connectionParams(options.databaseUrl), password: options.password };
  // One connection of its own, with short timeouts: a degraded database delays the budget's sync, never a delivery.
  const pool = new pg.Pool({ ...base, max: 1, connectionTimeoutMillis: 5_000, query_timeout: 5_000, keepAlive: true, idleTimeoutMillis: 30_000 });
  pool.on("error", () => {});
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('chargeguard_stripe_budget'))").catch(() => undefined);
    await client.query(schema);
  } finally {
    client.release();
  }
  return {
    sync: (reports, periodMs) => syncOnce(pool, options, reports, periodMs),
    close: () => pool.end(),
  };
}

async function syncOnce(pool: pg.Pool, options: FleetBudgetOptions, reports: readonly LimiterReport[], periodMs: number): Promise<FleetRates> {
  const now = Date.now();
  const account = options.account;
  const accountReport = reports.find((report) => report.limiter === accountLimiter);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO chargeguard_stripe_budget_members (account, member, seen_at, admitted_per_second) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account, member) DO UPDATE SET seen_at = EXCLUDED.seen_at, admitted_per_second = EXCLUDED.admitted_per_second`,
      [account, options.member, now, ((accountReport?.admitted ?? 0) * 1000) / periodMs],
    );
    const live = await client.query<{ members: string; admitted: number | null }>(
      `SELECT count(*) AS members, sum(admitted_per_second) AS admitted FROM chargeguard_stripe_budget_members WHERE account = $1 AND seen_at > $2`,
      [account, now - 3 * periodMs],
    );
    const fleetAdmitted = Number(live.rows[0]?.admitted ?? 0);
    const rows = await client.query<{ limiter: string; rate: number | null; changed_at: string }>(
      `SELECT limiter, rate, changed_at FROM chargeguard_stripe_budget WHERE account = $1 FOR UPDATE`,
      [account],
    );
    const stored = new Map(rows.rows.map((row) => [row.limiter, { rate: row.rate ?? undefined, changedAt: Number(row.changed_at) }]));
    const changes = fleetSteps(stored, reports, { now, periodMs, fleetAdmitted, ceiling: options.ceilingPerSecond });
    for (const change of changes) {
      await client.query(
        `INSERT INTO chargeguard_stripe_budget (account, limiter, rate, changed_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account, limiter) DO UPDATE SET rate = EXCLUDED.rate, changed_at = EXCLUDED.changed_at`,
        [account, change.limiter, change.rate ?? null, now],
      );
      stored.set(change.limiter, { rate: change.rate, changedAt: now });
    }
    await client.query(`DELETE FROM chargeguard_stripe_budget_members WHERE account = $1 AND seen_at < $2`, [account, now - 60 * periodMs]);
    await client.query("COMMIT");
    const rates = new Map([...stored].map(([limiter, row]) => [limiter, row.rate]));
    return { rates, members: Math.max(1, Number(live.rows[0]?.members ?? 1)) };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Which limiters change now: at most once a period each, fleet-wide (the first replica to sync takes the step). */
function fleetSteps(
  stored: ReadonlyMap<string, { rate: number | undefined; changedAt: number }>,
  reports: readonly LimiterReport[],
  at: { now: number; periodMs: number; fleetAdmitted: number; ceiling: number | undefined },
): { limiter: string; rate: number | undefined }[] {
  const changes: { limiter: string; rate: number | undefined }[] = [];
  for (const report of reports) {
    const row = stored.get(report.limiter);
    if (row !== undefined && at.now - row.changedAt < at.periodMs) continue;
    const ceiling = report.limiter === accountLimiter ? at.ceiling : undefined;
    const next = nextFleetRate(row?.rate, { throttled: report.throttled, saturated: report.saturated, admittedPerSecond: at.fleetAdmitted }, ceiling);
    if (row === undefined ? next !== undefined : next !== row.rate) changes.push({ limiter: report.limiter, rate: next });
  }
  return changes;
}
