// The Stripe budget shared by every replica on one Stripe account, through the PostgreSQL the replicas already share:
// one row per (account, limiter) holding the fleet's rate and its AIMD state, one row per (replica, limiter) holding
// that replica's last period. Each replica syncs once a period, off the message path, on a connection of its own
// (never one a delivery waits for): its counts go in, the fleet's step (fleet-step.ts, on the live replicas' counts)
// is taken at most once a period per limiter by whoever syncs first, and the rates and the live replicas come back.
import type pg from "pg";
import { FLEET_BUDGET_CONNECTIONS } from "../../tuning/index.js";
import { connectionParams, type DatabasePassword } from "../guard/pg-client.js";
import { listenedPool, type PgErrorLog } from "../guard/pg-errors.js";
import type { RateState } from "./aimd.js";
import { fleetStep, memberPeriod, unlearned, type MemberPeriod } from "./fleet-step.js";
import { accountLimiter, type FleetNews, type FleetRates, type FleetShare, type LimiterReport } from "./fleet-share.js";

export interface FleetBudgetOptions {
  databaseUrl: string;
  password?: DatabasePassword;
  /** Which Stripe account (any stable label; the key's hash by default): replicas of every consumer on it share. */
  account: string;
  /** This replica's id (the guard's lease owner). */
  member: string;
  /** The account's ceiling for the fleet, requests per second. */
  ceilingPerSecond?: number;
  /** Where a lost connection is logged (pg-errors.ts); default console.warn. */
  log?: PgErrorLog;
}

const schema = `
CREATE TABLE IF NOT EXISTS chargeguard_stripe_budget (
  account text NOT NULL, limiter text NOT NULL, rate double precision, knee double precision,
  cut_at bigint NOT NULL, changed_at bigint NOT NULL,
  PRIMARY KEY (account, limiter));
CREATE TABLE IF NOT EXISTS chargeguard_stripe_budget_members (
  account text NOT NULL, member text NOT NULL, limiter text NOT NULL, seen_at bigint NOT NULL,
  admitted_per_second double precision NOT NULL, throttled_per_second double precision NOT NULL, saturated boolean NOT NULL,
  PRIMARY KEY (account, member, limiter));
ALTER TABLE chargeguard_stripe_budget_members ADD COLUMN IF NOT EXISTS estimate_per_second double precision;`;

export { accountLabel } from "../stripe/account-label.js";

export async function openFleetBudget(options: FleetBudgetOptions): Promise<FleetShare> {
  const base = options.password === undefined ? { connectionString: options.databaseUrl } : { ...connectionParams(options.databaseUrl), password: options.password };
  // Connections of its own, with short timeouts: a degraded database delays the budget's sync, never a delivery. Two:
  // in slow start a peek, or the mark of the fleet's first 429, must not queue behind a sync under way.
  const pool = await listenedPool(
    { ...base, max: FLEET_BUDGET_CONNECTIONS, connectionTimeoutMillis: 5_000, query_timeout: 5_000, keepAlive: true, idleTimeoutMillis: 30_000 },
    "the Stripe budget's pool",
    options.log,
  );
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext('chargeguard_stripe_budget'))");
    await client.query(schema);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release();
    await pool.end();
    throw error;
  }
  client.release();
  return {
    sync: (reports, periodMs) => syncOnce(pool, options, reports, periodMs),
    peek: (periodMs) => peek(pool, options.account, periodMs),
    firstThrottled: (limiter) => markFirstThrottled(pool, options.account, limiter),
    close: () => pool.end(),
  };
}

/** The limiters on which the fleet met a 429 (fleet-step.ts, metThrottling) and the live replicas: one read, no lock. */
async function peek(pool: pg.Pool, account: string, periodMs: number): Promise<FleetNews> {
  const { rows } = await pool.query<{ limiter: string | null; rate: number | null; members: string }>(
    `SELECT limiter, rate, (SELECT count(*) FROM chargeguard_stripe_budget_members
                             WHERE account = $1 AND limiter = $2 AND seen_at > $3) AS members
       FROM (SELECT 1) AS one LEFT JOIN chargeguard_stripe_budget ON account = $1 AND (rate IS NOT NULL OR cut_at > 0)`,
    [account, accountLimiter, Date.now() - 3 * periodMs],
  );
  const throttled = new Map(rows.flatMap((row) => (row.limiter === null ? [] : [[row.limiter, row.rate ?? undefined] as const])));
  return { throttled, members: Math.max(1, Number(rows[0]?.members ?? 1)) };
}

/** fleet-step.ts, firstThrottled, in one statement: a row with no rate and no cut yet gets its first cut now. */
async function markFirstThrottled(pool: pg.Pool, account: string, limiter: string): Promise<void> {
  await pool.query(
    `INSERT INTO chargeguard_stripe_budget (account, limiter, rate, knee, cut_at, changed_at) VALUES ($1, $2, NULL, NULL, $3, $3)
     ON CONFLICT (account, limiter) DO UPDATE SET cut_at = EXCLUDED.cut_at, changed_at = EXCLUDED.changed_at
       WHERE chargeguard_stripe_budget.rate IS NULL AND chargeguard_stripe_budget.cut_at = 0`,
    [account, limiter, Date.now()],
  );
}

async function syncOnce(pool: pg.Pool, options: FleetBudgetOptions, reports: readonly LimiterReport[], periodMs: number): Promise<FleetRates> {
  const now = Date.now();
  const { account } = options;
  const periods = reports.map((report) => memberPeriod(report, periodMs));
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO chargeguard_stripe_budget_members
         (account, member, limiter, seen_at, admitted_per_second, throttled_per_second, saturated, estimate_per_second)
       SELECT $1, $2, r.limiter, $3, r.admitted, r.throttled, r.saturated, r.estimate
         FROM unnest($4::text[], $5::float8[], $6::float8[], $7::boolean[], $8::float8[]) AS r(limiter, admitted, throttled, saturated, estimate)
       ON CONFLICT (account, member, limiter) DO UPDATE SET seen_at = EXCLUDED.seen_at, admitted_per_second = EXCLUDED.admitted_per_second,
         throttled_per_second = EXCLUDED.throttled_per_second, saturated = EXCLUDED.saturated,
         estimate_per_second = EXCLUDED.estimate_per_second`,
      [
        account,
        options.member,
        now,
        reports.map((r) => r.limiter),
        periods.map((p) => p.admittedPerSecond),
        periods.map((p) => p.throttledPerSecond),
        periods.map((p) => p.saturated),
        periods.map((p) => p.estimate ?? null),
      ],
    );
    const live = await client.query<{ limiter: string; admitted: number; throttled: number; saturated: boolean; estimate: number | null }>(
      `SELECT limiter, admitted_per_second AS admitted, throttled_per_second AS throttled, saturated, estimate_per_second AS estimate
         FROM chargeguard_stripe_budget_members WHERE account = $1 AND seen_at > $2`,
      [account, now - 3 * periodMs],
    );
    const members = new Map<string, MemberPeriod[]>();
    for (const row of live.rows) {
      const period = { admittedPerSecond: Number(row.admitted), throttledPerSecond: Number(row.throttled), saturated: row.saturated, estimate: row.estimate ?? undefined };
      members.set(row.limiter, [...(members.get(row.limiter) ?? []), period]);
    }
    // The rate is divided among the live replicas. (Dividing among those with work in the last period made the
    // count flicker with the traffic, and each flicker overshot the budget: bench:fleet, 35% 429s at 6 replicas.)
    const replicas = Math.max(1, members.get(accountLimiter)?.length ?? 1);
    const rows = await client.query<{ limiter: string; rate: number | null; knee: number | null; cut_at: string; changed_at: string }>(
      `SELECT limiter, rate, knee, cut_at, changed_at FROM chargeguard_stripe_budget WHERE account = $1 FOR UPDATE`,
      [account],
    );
    const stored = new Map<string, RateState>(
      rows.rows.map((row) => [row.limiter, { rate: row.rate ?? undefined, knee: row.knee ?? undefined, cutAt: Number(row.cut_at), changedAt: Number(row.changed_at) }]),
    );
    for (const [i, report] of reports.entries()) {
      const state = stored.get(report.limiter) ?? unlearned;
      const ceiling = report.limiter === accountLimiter ? options.ceilingPerSecond : undefined;
      const next = fleetStep(state, members.get(report.limiter) ?? [], periods[i] as MemberPeriod, { now, periodMs, ceiling });
      if (next === state && stored.has(report.limiter)) continue;
      await client.query(
        `INSERT INTO chargeguard_stripe_budget (account, limiter, rate, knee, cut_at, changed_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account, limiter) DO UPDATE SET rate = EXCLUDED.rate, knee = EXCLUDED.knee, cut_at = EXCLUDED.cut_at, changed_at = EXCLUDED.changed_at`,
        [account, report.limiter, next.rate ?? null, next.knee ?? null, Math.max(0, next.cutAt), Math.max(0, next.changedAt)],
      );
      stored.set(report.limiter, next);
    }
    await client.query(`DELETE FROM chargeguard_stripe_budget_members WHERE account = $1 AND seen_at < $2`, [account, now - 60 * periodMs]);
    await client.query("COMMIT");
    client.release();
    return { rates: new Map([...stored].map(([limiter, state]) => [limiter, state.rate])), members: replicas };
  } catch (error) {
    // A connection whose ROLLBACK failed may still be busy with a statement its timeout gave up on (a hung server):
    // destroyed, not handed to the next sync to queue behind it.
    const broken = await client.query("ROLLBACK").then(
      () => undefined,
      (rollbackError: unknown) => (rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))),
    );
    client.release(broken);
    throw error;
  }
}
