// The guard: one row per (scope, identity) in guard_records (PostgreSQL or PGlite) decides who may call Stripe (a
// lease), what was already billed (state, recovery points), and how much of the (period, currency) cap is spoken for
// (the spend ledger), for every flow, the default PaymentIntent consumer's included. `run()` is the primitive
// (guarded-run.ts) over this store. Claims and "done" outcomes are group-committed (guard-batches.ts): N concurrent
// deliveries cost one statement, one commit and one disk flush. Every time comes from the injected clock.
import { randomUUID } from "node:crypto";
import { deliveryBudgetMs, type StripeBudget } from "../../tuning/index.js";
import { systemClock, type Clock } from "../core/clock.js";
import { BillingStateError, ConfigurationError, GuardInputError } from "../core/errors.js";
import { createBatcher, type Batcher } from "./batcher.js";
import { writeClaims, writeDone, type ClaimAnswer, type QueuedClaim, type QueuedDone } from "./guard-batches.js";
import { json, recordKeyWhere, toGuardRecord, type GuardLease, type GuardRecord, type GuardRow } from "./guard-record.js";
import type { ForgetGround, GuardStore, StoreClaim, StoreClaimRequest } from "./guard-store.js";
import { identify, runGuarded, type GuardOutcome, type GuardRunInput, type GuardRunOptions, type GuardWork } from "./guarded-run.js";
import { readGuardHealth, type GuardHealth } from "./health.js";
import { migrate } from "./migrations.js";
import { openSqlClient, type GuardDatabaseOptions } from "./open-sql-client.js";
import { readPeriodSpend, type PeriodSpend } from "./period-spend.js";
import { givingBackReservation, type ReservationColumns } from "./reservation-sql.js";
import { spendCaps, type SpendCapFor, type SpendCapOptions } from "./spend-caps.js";
import type { SqlClient } from "./sql-client.js";
import { mismatchReason } from "./mismatch.js";

export type { GuardLease, GuardRecord, GuardRecordState } from "./guard-record.js";

export interface GuardOptions extends SpendCapOptions, GuardDatabaseOptions {
  clock?: Clock;
  /**
   * The Stripe client's timeout and retries: a run's lease is one delivery budget (chargeguard/tuning) per Stripe
   * call the flow makes (`calls`, default 1). Ignored when `leaseMs` is given.
   */
  stripe?: StripeBudget & { calls?: number };
  /** A fixed lease; default from `stripe`, else `defaultLeaseMs`. */
  leaseMs?: number;
}

export const defaultLeaseMs = 120_000;
/**
 * At most this many claims or outcomes share one statement (PostgreSQL keeps up to 64 subtransactions per
 * transaction in its fast cache), and this many batches are written at a time, each on its own connection: with
 * one, a delivery arriving while a batch is written waits for it; a few in parallel keep that wait short.
 */
const maxBatch = 32;
const maxInFlight = 4;
/** What a guard record reserved against its period's cap. */
const guardReservation: ReservationColumns = { period: "spend_period", currency: "spend_currency", amount: "spend_amount" };

export class Guard implements GuardStore<GuardLease> {
  readonly clock: Clock;
  readonly leaseMs: number;
  readonly #sql: SqlClient;
  readonly #cap: SpendCapFor;
  readonly #claims: Batcher<QueuedClaim, ClaimAnswer>;
  readonly #done: Batcher<QueuedDone, boolean>;

  private constructor(sql: SqlClient, options: GuardOptions, leaseMs: number) {
    this.#sql = sql;
    this.clock = options.clock ?? systemClock;
    this.leaseMs = leaseMs;
    this.#cap = spendCaps(options);
    this.#claims = createBatcher((items) => writeClaims(sql, items), { maxBatch, maxInFlight });
    this.#done = createBatcher((items) => writeDone(sql, items), { maxBatch, maxInFlight });
  }

  /** Connects (PostgreSQL when `databaseUrl`, else PGlite) and brings the schema up to date. */
  static async open(options: GuardOptions = {}): Promise<Guard> {
    spendCaps(options);
    const calls = options.stripe?.calls ?? 1;
    if (!Number.isSafeInteger(calls) || calls < 1) throw new ConfigurationError(`stripe.calls must be a positive integer, got ${calls}`);
    const leaseMs = options.leaseMs ?? (options.stripe ? calls * deliveryBudgetMs({ stripe: options.stripe }) : defaultLeaseMs);
    if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) throw new ConfigurationError(`leaseMs must be a positive integer, got ${leaseMs}`);
    const sql = await openSqlClient(options);
    const guard = new Guard(sql, options, leaseMs);
    try {
      await migrate(sql, guard.#now());
    } catch (error) {
      await sql.close();
      throw error;
    }
    return guard;
  }

  #now(): Date {
    return new Date(this.clock.now());
  }

  /** What operators watch (telemetry gauges): pending records and the spend of the latest periods. */
  async health(options: { periods?: number } = {}): Promise<GuardHealth> {
    return readGuardHealth(this.#sql, this.#now(), { periods: options.periods ?? 12, capFor: (period, currency) => this.#cap(period, currency) });
  }

  /** The primitive over this store: claim, work with recovery points, record. See guarded-run.ts. */
  run(input: GuardRunInput, work: GuardWork, options: GuardRunOptions = {}): Promise<GuardOutcome> {
    return runGuarded(this, input, work, { now: () => this.clock.now(), ...options });
  }

  /**
   * Decides whether `request.owner` may call Stripe for this record now, in one statement shared with the claims
   * made meanwhile. A new record is inserted `pending` with a lease, its spend reserved against the (period,
   * currency) cap; a pending one whose lease lapsed is taken over (no second reservation); anything else is
   * reported as it stands. Committed and flushed before it resolves: durable before anyone calls Stripe on it.
   */
  async claim(request: StoreClaimRequest): Promise<StoreClaim<GuardLease>> {
    const now = this.#now();
    const leaseMs = request.leaseMs ?? this.leaseMs;
    if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) throw new GuardInputError(`leaseMs must be a positive integer, got ${leaseMs}`);
    const lockedUntil = new Date(now.getTime() + leaseMs);
    const token = randomUUID();
    const spend = request.spend;
    const cap = spend ? this.#cap(spend.period, spend.currency) : undefined;
    const answer = await this.#claims.add({ request, cap, now, lockedUntil, token });
    if (answer.over_cap || answer.row_json === null) {
      const committed = await this.#committed(spend?.period ?? "", spend?.currency ?? "");
      const capCents = cap ?? 0;
      return {
        status: "cap-exceeded",
        capCents,
        reservedCents: committed,
        reason:
          `SpendCapExceeded: period ${spend?.period} has a ${spend?.currency} cap of ${capCents} with ${committed} reserved or ` +
          `charged; ${spend?.amount} more for ${request.scope} ${request.recordKey} would exceed it`,
      };
    }
    const record = toGuardRecord(json(answer.row_json));
    if (answer.is_claimed) {
      return {
        status: "claimed",
        lease: { scope: request.scope, recordKey: request.recordKey, owner: request.owner, token, lockedUntil },
        attempt: record.attempts,
        steps: record.steps,
        createdAt: record.createdAt,
      };
    }
    if (record.fingerprint !== request.fingerprint) {
      return { status: "mismatch", reason: mismatchReason(record, request) };
    }
    if (record.state === "done") return { status: "already-done", objectId: record.objectId };
    if (record.state === "declined") return { status: "declined", reason: record.declineReason };
    return { status: "busy", retryAfterMs: Math.max(0, (record.lockedUntil?.getTime() ?? 0) - now.getTime()) };
  }

  async #committed(period: string, currency: string): Promise<number> {
    const [row] = await this.#sql.query<{ committed_cents: string | number }>(
      `SELECT committed_cents FROM spend_ledger WHERE billing_period = $1 AND currency = $2`,
      [period, currency],
    );
    return Number(row?.committed_cents ?? 0);
  }

  /**
   * A recovery point. Like an outcome, a Stripe object is a fact whoever holds the lease now, so a holder whose lease
   * was taken over still records it; the same id twice is a no-op; another id for the same step is a contradiction.
   */
  async saveStep(lease: GuardLease, step: string, objectId: string): Promise<void> {
    const rows = await this.#sql.query<{ existing: string | null }>(
      `WITH current AS (
         SELECT steps ->> $3 AS existing FROM guard_records WHERE ${recordKeyWhere} FOR UPDATE
       ), saved AS (
         UPDATE guard_records SET steps = steps || jsonb_build_object($3::text, $4::text), updated_at = $5
          WHERE ${recordKeyWhere} AND state = 'pending' AND (steps ->> $3) IS NULL
         RETURNING 1
       )
       SELECT existing FROM current`,
      [lease.scope, lease.recordKey, step, objectId, this.#now()],
    );
    const [row] = rows;
    if (!row) throw new BillingStateError(`no guard record ${lease.scope} ${lease.recordKey}`);
    if (row.existing !== null && row.existing !== objectId) {
      throw new BillingStateError(`${lease.scope} ${lease.recordKey} step ${step} is recorded as ${row.existing}, not ${objectId}`);
    }
  }

  /**
   * The work is done: in one statement shared with the outcomes recorded meanwhile, committed and flushed before it
   * resolves. The spend stays committed (reserved at the claim). A Stripe outcome is a fact whoever holds the lease
   * now, so a holder whose lease was taken over still records it; the same object twice is a no-op (false).
   */
  async markDone(lease: GuardLease, outcome: { objectId: string; result?: Record<string, unknown> }): Promise<boolean> {
    if (typeof outcome?.objectId !== "string" || outcome.objectId.length === 0 || outcome.objectId.length > 255) {
      throw new GuardInputError(`objectId must be a Stripe object id (1-255 characters), got ${JSON.stringify(outcome?.objectId)}`);
    }
    if (await this.#done.add({ lease, objectId: outcome.objectId, result: outcome.result, now: this.#now() })) return true;
    const record = await this.#existing(lease);
    if (record.state === "done" && record.objectId === outcome.objectId) return false;
    throw new BillingStateError(`${lease.scope} ${lease.recordKey} is ${record.state} (${record.objectId}); cannot record done ${outcome.objectId}`);
  }

  /** Records a decline and gives the reservation back, in one statement. Twice is a no-op. */
  async markDeclined(lease: GuardLease, outcome: { reason: string; objectId?: string }): Promise<boolean> {
    const [moved] = await this.#sql.query<{ settled: string | number }>(
      givingBackReservation(
        "settled",
        `UPDATE guard_records
            SET state = 'declined', decline_reason = $3, object_id = $4, locked_until = NULL, lock_owner = NULL,
                lease_token = NULL, updated_at = $5
          WHERE ${recordKeyWhere} AND state = 'pending'`,
        guardReservation,
        "$5",
      ),
      [lease.scope, lease.recordKey, outcome.reason, outcome.objectId ?? null, this.#now()],
    );
    if (Number(moved?.settled) === 1) return true;
    const record = await this.#existing(lease);
    if (record.state === "declined") return false;
    throw new BillingStateError(`${lease.scope} ${lease.recordKey} is ${record.state}; cannot record a decline`);
  }

  /** Outcome unknown: the record stays pending and reserved, its lease freed for the retry or the reconciler. */
  async release(lease: GuardLease): Promise<void> {
    await this.#sql.query(
      `UPDATE guard_records SET locked_until = NULL, lock_owner = NULL, lease_token = NULL, updated_at = $4
        WHERE ${recordKeyWhere} AND state = 'pending' AND lease_token = $3`,
      [lease.scope, lease.recordKey, lease.token, this.#now()],
    );
  }

  /**
   * A refused record Stripe provably holds nothing for (`ground`, guard-store.ts): removed, its reservation given
   * back. The condition is spelled out in the statement so the store, not only its caller, keeps the rule.
   */
  async forget(lease: GuardLease, ground: ForgetGround): Promise<boolean> {
    const now = this.#now();
    const refusedUnderKey = ground.kind === "refused-under-key";
    if (refusedUnderKey && (!Number.isSafeInteger(ground.keyWindowMs) || ground.keyWindowMs <= 0)) {
      throw new GuardInputError(`keyWindowMs must be a positive integer, got ${ground.keyWindowMs}`);
    }
    const [gone] = await this.#sql.query<{ gone: string | number }>(
      givingBackReservation(
        "gone",
        // Only the lease's holder, only a pending record. Never one with a recovery point: Stripe holds that step's
        // object. Then either its first attempt (nothing earlier could have reached Stripe), or any attempt when
        // Stripe refused this one under the record's key while the key is still in Stripe's window (created after
        // $6): a committed earlier request would have been replayed, so Stripe holds nothing for the key. Past the
        // window ($6 NULL for the first ground) the key is pruned and a refusal says nothing about the first request.
        `DELETE FROM guard_records
          WHERE ${recordKeyWhere} AND state = 'pending' AND lease_token = $3 AND steps = '{}'::jsonb
            AND CASE $5::text
                  WHEN 'first-attempt' THEN attempts = 1
                  WHEN 'refused-under-key' THEN created_at > $6::timestamptz
                  ELSE false
                END`,
        guardReservation,
        "$4",
      ),
      [lease.scope, lease.recordKey, lease.token, now, ground.kind, refusedUnderKey ? new Date(now.getTime() - ground.keyWindowMs) : null],
    );
    return Number(gone?.gone) === 1;
  }

  async #existing(lease: GuardLease): Promise<GuardRecord> {
    const [row] = await this.#sql.query<GuardRow>(`SELECT * FROM guard_records WHERE ${recordKeyWhere}`, [lease.scope, lease.recordKey]);
    if (!row) throw new BillingStateError(`no guard record ${lease.scope} ${lease.recordKey}`);
    return toGuardRecord(row);
  }

  /** The record for an identity (the same fields `run()` got as `key`). */
  async get(scope: string, key: Readonly<Record<string, string | number>>): Promise<GuardRecord | undefined> {
    const { recordKey } = identify({ scope, key, payload: {}, flow: "lookup" });
    const [row] = await this.#sql.query<GuardRow>(`SELECT * FROM guard_records WHERE ${recordKeyWhere}`, [scope, recordKey]);
    return row ? toGuardRecord(row) : undefined;
  }

  /** Pending records nobody holds (lease lapsed by the guard's clock, or released), oldest first: the reconciler's work. */
  async stalePending(options: { limit?: number; flow?: string } = {}): Promise<GuardRecord[]> {
    return this.#pending("(locked_until IS NULL OR locked_until <= $1)", "created_at", options);
  }

  /** Pending records under a lease not yet lapsed (a consumer may still be billing them), soonest free first: what the reconciler leaves. */
  async leasedPending(options: { limit?: number; flow?: string } = {}): Promise<GuardRecord[]> {
    return this.#pending("locked_until > $1", "locked_until", options);
  }

  async #pending(leaseWhere: string, order: string, options: { limit?: number; flow?: string }): Promise<GuardRecord[]> {
    const limit = options.limit ?? 100;
    if (!Number.isSafeInteger(limit) || limit <= 0) throw new TypeError(`limit must be a positive integer, got ${limit}`);
    const rows = await this.#sql.query<GuardRow>(
      `SELECT * FROM guard_records
        WHERE state = 'pending' AND ${leaseWhere} AND ($3::text IS NULL OR flow = $3)
        ORDER BY ${order}, scope, record_key
        LIMIT $2`,
      [this.#now(), limit, options.flow ?? null],
    );
    return rows.map(toGuardRecord);
  }

  /** A (period, currency)'s cap and what is committed against it (reserved + done, every flow). */
  async spend(period: string, currency: string): Promise<{ capCents: number | null; committedCents: number }> {
    return { capCents: this.#cap(period, currency) ?? null, committedCents: await this.#committed(period, currency) };
  }

  /**
   * A period's cap and spend in one currency (its minor units); without a currency, every currency's summed (a
   * report only: caps are per currency).
   */
  async periodSpend(period: string, currency?: string): Promise<PeriodSpend> {
    return readPeriodSpend(this.#sql, this.#cap, period, currency);
  }

  /** Writes what is queued (claims, outcomes), then closes the connection (when the guard opened it). */
  async close(): Promise<void> {
    await Promise.all([this.#claims.drain(), this.#done.drain()]);
    await this.#sql.close();
  }
}
