// The billing guard: one row per (customer, billing period) in PostgreSQL or PGlite decides who may call
// Stripe (a lease), what was already billed (state), and how much of the period's cap is spoken for (ledger).
// Every decision is one transaction; every time comes from the injected clock, never from the database's now().
// Claims, charges and completions are batched (claim-batch.ts, record-batches.ts); the rest is one statement here.
import { randomUUID } from "node:crypto";
import { systemClock, type Clock } from "../clock.js";
import { createBatcher, type Batcher } from "./batcher.js";
import { BillingStateError, ConfigurationError } from "../errors.js";
import { recordKey, type BillingKey } from "./billing-key.js";
import { writeClaims, type ClaimAnswer, type QueuedClaim } from "./claim-batch.js";
import { requireText, validateClaim } from "./claim-validation.js";
import { readGuardHealth, type GuardHealth } from "./health.js";
import { migrate } from "./migrations.js";
import { openSqlClient } from "./open-sql-client.js";
import { readPeriodSpend } from "./period-spend.js";
import { givingBackReservation, type ReservationColumns } from "./reservation-sql.js";
import { writeCharges, writeCompletions, type QueuedCharge, type QueuedCompletion } from "./record-batches.js";
import { claimFingerprint, mismatchReason, toRecord, type BillingRow } from "./records.js";
import { spendCaps, type SpendCapFor } from "./spend-caps.js";
import type { SqlClient } from "./sql-client.js";
import type {
  BillingGuardOptions,
  BillingRecord,
  ClaimInput,
  ClaimResult,
  Lease,
  PeriodSpend,
} from "./types.js";

export const defaultLeaseMs = 120_000;

/**
 * At most this many claims, charges or completions share one statement. Claims run one subtransaction each, and
 * PostgreSQL keeps up to 64 per transaction in its fast cache.
 */
const maxBatch = 32;
/**
 * Claim and charge batches written at a time (each on its own connection): with one, a delivery arriving while a
 * batch is written waits for it to finish; a few in parallel keep that wait short when every round trip is slow.
 */
const maxInFlight = 4;

/** What a billing record reserved against its period's cap. */
const billingReservation: ReservationColumns = { period: "billing_period", currency: "currency", amount: "amount_cents" };

export class BillingGuard {
  readonly clock: Clock;
  readonly leaseMs: number;
  readonly #sql: SqlClient;
  readonly #cap: SpendCapFor;
  readonly #claims: Batcher<QueuedClaim, ClaimAnswer>;
  readonly #charges: Batcher<QueuedCharge, boolean>;
  readonly #completions: Batcher<QueuedCompletion, void>;

  private constructor(sql: SqlClient, options: BillingGuardOptions) {
    this.#sql = sql;
    this.clock = options.clock ?? systemClock;
    this.leaseMs = options.leaseMs ?? defaultLeaseMs;
    this.#cap = spendCaps(options);
    this.#claims = createBatcher((items) => writeClaims(sql, items), { maxBatch, maxInFlight });
    this.#charges = createBatcher((items) => writeCharges(sql, items), { maxBatch, maxInFlight });
    this.#completions = createBatcher((items) => writeCompletions(sql, items), { maxBatch });
  }

  /** Connects (PostgreSQL when `databaseUrl`, else PGlite) and brings the schema up to date. */
  static async open(options: BillingGuardOptions = {}): Promise<BillingGuard> {
    if (options.leaseMs !== undefined && (!Number.isSafeInteger(options.leaseMs) || options.leaseMs <= 0)) {
      throw new ConfigurationError(`leaseMs must be a positive integer, got ${options.leaseMs}`);
    }
    spendCaps(options);
    const sql = await openSqlClient(options);
    const guard = new BillingGuard(sql, options);
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

  /**
   * Decides whether `owner` may call Stripe for this billing now, in one statement (the `chargeguard_claim`
   * function, see migrations.ts) shared with the claims made meanwhile (batcher.ts). A new billing is inserted
   * `pending` with a lease, its amount reserved against the period cap; a pending one whose lease lapsed is taken
   * over (no second reservation); anything else is reported as it stands. The claim is committed and flushed to disk
   * before this resolves, so it is durable before anyone calls Stripe on it.
   */
  async claim(input: ClaimInput, owner: string): Promise<ClaimResult> {
    validateClaim(input, owner);
    const fingerprint = claimFingerprint(input);
    const cap = this.#cap(input.billingPeriod, input.currency);
    const now = this.#now();
    const lockedUntil = new Date(now.getTime() + this.leaseMs);
    const token = randomUUID();
    const answer = await this.#claims.add({ input, owner, fingerprint, cap, now, lockedUntil, token });
    if (answer.over_cap || answer.row_json === null) {
      // Its subtransaction rolled back (no record, no reservation); report the ledger as it stands.
      const spend = await this.periodSpend(input.billingPeriod, input.currency);
      const spoken = spend.reservedCents + spend.chargedCents;
      const capCents = cap as number;
      return {
        status: "cap-exceeded",
        capCents,
        reservedCents: spoken,
        reason:
          `SpendCapExceeded: period ${input.billingPeriod} has a ${input.currency} cap of ${capCents} with ${spoken} reserved or ` +
          `charged; ${input.amountCents} more for customer ${input.customerId} would exceed it`,
      };
    }
    const record = toRecord(typeof answer.row_json === "string" ? (JSON.parse(answer.row_json) as BillingRow) : answer.row_json);
    if (answer.is_claimed) {
      return { status: "claimed", record, lease: { customerId: input.customerId, billingPeriod: input.billingPeriod, owner, token, lockedUntil } };
    }
    if (record.fingerprint !== fingerprint) return { status: "mismatch", record, reason: mismatchReason(record, input) };
    if (record.state === "charged" || record.state === "completed") return { status: "already-billed", record };
    if (record.state === "declined") return { status: "declined", record };
    const retryAfterMs = Math.max(0, (record.lockedUntil?.getTime() ?? 0) - now.getTime());
    return { status: "busy", record, retryAfterMs };
  }

  /**
   * Records that Stripe charged this billing, in one statement shared with the charges recorded meanwhile, committed
   * and flushed before this resolves. Its amount stays committed in the period's ledger (reserved at the claim), so
   * this touches only the record. A Stripe outcome is a fact whoever holds the lease now (same
   * idempotency key, same PaymentIntent), so a holder whose lease was taken over still records it; recording the
   * same PaymentIntent twice is a no-op. True when this call turned the record charged (telemetry counts a billing
   * once), false for the no-op.
   */
  async markCharged(lease: Lease, outcome: { paymentIntentId: string }): Promise<boolean> {
    requireText("paymentIntentId", outcome?.paymentIntentId, 255);
    if (await this.#charges.add({ lease, paymentIntentId: outcome.paymentIntentId, now: this.#now() })) return true;
    const record = await this.#settled(lease);
    if ((record.state === "charged" || record.state === "completed") && record.paymentIntentId === outcome.paymentIntentId) return false;
    throw new BillingStateError(
      record.state === "declined"
        ? `customer ${record.customerId} period ${record.billingPeriod} is recorded declined; cannot record charge ${outcome.paymentIntentId}`
        : `customer ${record.customerId} period ${record.billingPeriod} is already charged by ${record.paymentIntentId}, not ${outcome.paymentIntentId}`,
    );
  }

  /**
   * Records a decline (card refused) and releases the reservation, in one statement. Recording it twice is a no-op.
   * True when this call turned the record declined, false for the no-op.
   */
  async markDeclined(lease: Lease, outcome: { reason: string; paymentIntentId?: string }): Promise<boolean> {
    requireText("reason", outcome?.reason, 10_000);
    const [moved] = await this.#sql.query<{ settled: string | number }>(
      givingBackReservation(
        "settled",
        `UPDATE billing_records
            SET state = 'declined', decline_reason = $3, payment_intent_id = $4, locked_until = NULL, lock_owner = NULL,
                lease_token = NULL, updated_at = $5
          WHERE ${recordKey} AND state = 'pending'`,
        billingReservation,
        "$5",
      ),
      [lease.customerId, lease.billingPeriod, outcome.reason, outcome.paymentIntentId ?? null, this.#now()],
    );
    if (Number(moved?.settled) === 1) return true;
    const record = await this.#settled(lease);
    if (record.state === "declined") return false;
    throw new BillingStateError(
      `customer ${record.customerId} period ${record.billingPeriod} is ${record.state} (${record.paymentIntentId}); cannot record a decline`,
    );
  }

  /** The record a settling statement did not find pending: it exists, or the caller named a billing never claimed. */
  async #settled(key: { customerId: string; billingPeriod: string }): Promise<BillingRecord> {
    const record = await this.get(key.customerId, key.billingPeriod);
    if (!record) throw new BillingStateError(`no billing record for customer ${key.customerId} period ${key.billingPeriod}`);
    return record;
  }

  /**
   * Outcome unknown: the record stays pending (and reserved) and the lease is freed, so the scheduled retry or
   * the reconciler can claim it at once. Releasing a lease that was taken over does nothing.
   */
  async releaseLease(lease: Lease): Promise<void> {
    await this.#sql.query(
      `UPDATE billing_records SET locked_until = NULL, lock_owner = NULL, lease_token = NULL, updated_at = $4
        WHERE ${recordKey} AND state = 'pending' AND lease_token = $3`,
      [lease.customerId, lease.billingPeriod, lease.token, this.#now()],
    );
  }

  /** `GuardStore.forget` for billing_records: a first attempt refused before Stripe is removed, its reservation given back. */
  async forgetRefused(lease: Lease): Promise<boolean> {
    const [gone] = await this.#sql.query<{ gone: string | number }>(
      givingBackReservation(
        "gone",
        `DELETE FROM billing_records WHERE ${recordKey} AND state = 'pending' AND lease_token = $3 AND attempts = 1`,
        billingReservation,
        "$4",
      ),
      [lease.customerId, lease.billingPeriod, lease.token, this.#now()],
    );
    return Number(gone?.gone) === 1;
  }

  /**
   * The message is settled: `charged -> completed` (completing twice is a no-op). Committed without waiting for the
   * disk flush (`synchronous_commit` off for this statement only): if a server crash loses it, the record stays
   * `charged`, which a replay already treats as billed, so the fsync would buy nothing but latency.
   */
  async markCompleted(key: { customerId: string; billingPeriod: string }): Promise<void> {
    const updated = await this.#sql.query(
      `UPDATE billing_records SET state = 'completed', updated_at = $3
         FROM (SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait
        WHERE ${recordKey} AND state IN ('charged', 'completed')
        RETURNING state`,
      [key.customerId, key.billingPeriod, this.#now()],
    );
    if (updated.length > 0) return;
    const record = await this.get(key.customerId, key.billingPeriod);
    throw new BillingStateError(
      record
        ? `customer ${key.customerId} period ${key.billingPeriod} is ${record.state}; only a charged billing can be completed`
        : `no billing record for customer ${key.customerId} period ${key.billingPeriod}`,
    );
  }

  /**
   * `markCompleted` off the caller's critical path: written together with the completions queued meanwhile, in one
   * UPDATE without waiting for the disk flush (as markCompleted). The promise settles when its batch is written; a
   * consumer need not wait for it, because a completion that is never written leaves the record `charged`, which
   * every replay already treats as billed. Unlike `markCompleted`, a key that is not charged is skipped, not reported.
   */
  markCompletedLater(key: BillingKey): Promise<void> {
    return this.#completions.add({ customerId: key.customerId, billingPeriod: key.billingPeriod, now: this.#now() });
  }

  /** Resolves once every completion queued so far is written (or has failed). */
  flushCompletions(): Promise<void> {
    return this.#completions.drain();
  }

  async get(customerId: string, billingPeriod: string): Promise<BillingRecord | undefined> {
    const [row] = await this.#sql.query<BillingRow>(`SELECT * FROM billing_records WHERE ${recordKey}`, [
      customerId,
      billingPeriod,
    ]);
    return row ? toRecord(row) : undefined;
  }

  /** Pending billings nobody holds: lease lapsed (by the guard's clock) or released. Oldest first. */
  async stalePending(options: { limit?: number } = {}): Promise<BillingRecord[]> {
    const limit = options.limit ?? 100;
    if (!Number.isSafeInteger(limit) || limit <= 0) throw new TypeError(`limit must be a positive integer, got ${limit}`);
    const rows = await this.#sql.query<BillingRow>(
      `SELECT * FROM billing_records
        WHERE state = 'pending' AND (locked_until IS NULL OR locked_until <= $1)
        ORDER BY created_at, customer_id, billing_period
        LIMIT $2`,
      [this.#now(), limit],
    );
    return rows.map(toRecord);
  }

  /**
   * A period's cap and spend in one currency (its minor units); without a currency, every currency's summed (a
   * report only: caps are per currency). Charged is summed over the records: a reporting call, not the hot path.
   */
  async periodSpend(billingPeriod: string, currency?: string): Promise<PeriodSpend> {
    return readPeriodSpend(this.#sql, this.#cap, billingPeriod, currency);
  }

  /** What operators watch (telemetry gauges): pending billings and the spend of the latest periods. */
  async health(options: { periods?: number } = {}): Promise<GuardHealth> {
    return readGuardHealth(this.#sql, this.#now(), { periods: options.periods ?? 12, capFor: (period, currency) => this.#cap(period, currency) });
  }

  /** Writes what is queued (claims, charges, completions), then closes the connection (when the guard opened it). */
  async close(): Promise<void> {
    await Promise.all([this.#claims.drain(), this.#charges.drain(), this.#completions.drain()]);
    await this.#sql.close();
  }
}
