// Records the reconciler can never settle (a meter event past Stripe's identifier window, a refusal past the key
// window: neither sent nor unsent can be proven) move out of its way into a state of their own, `unsettleable`: kept,
// never deleted, their reservation still counted against the cap (Stripe may hold the money). The reconciler then
// reaches the newer pending records behind them. An operator lists them and resolves each with a reason: charged
// (done, the reservation stays spent) or not charged (declined, the reservation given back).
import { BillingStateError, GuardInputError } from "../core/errors.js";
import { recordKeyWhere, toGuardRecord, type GuardRecord, type GuardRow } from "./guard-record.js";
import { givingBackReservation, type ReservationColumns } from "./reservation-sql.js";
import type { SqlExecutor } from "./sql-client.js";

const reservation: ReservationColumns = { period: "spend_period", currency: "spend_currency", amount: "spend_amount" };

/** Moves a pending record nobody holds to `unsettleable` with the reason; false when it is not that (any more). */
export async function holdUnsettleable(sql: SqlExecutor, scope: string, recordKey: string, reason: string, now: Date): Promise<boolean> {
  const rows = await sql.query<{ held: number }>(
    `UPDATE guard_records SET state = 'unsettleable', held_reason = $3, locked_until = NULL, lock_owner = NULL,
            lease_token = NULL, updated_at = $4
      WHERE ${recordKeyWhere} AND state = 'pending' AND (locked_until IS NULL OR locked_until <= $4)
      RETURNING 1 AS held`,
    [scope, recordKey, reason, now],
  );
  return rows.length === 1;
}

/** The unsettleable records, oldest first, with why each was held (`declineReason` carries it). */
export async function listUnsettleable(sql: SqlExecutor, limit: number): Promise<GuardRecord[]> {
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new GuardInputError(`limit must be a positive integer, got ${limit}`);
  const rows = await sql.query<GuardRow>(
    `SELECT * FROM guard_records WHERE state = 'unsettleable' ORDER BY created_at, scope, record_key LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({ ...toGuardRecord(row), declineReason: (row.held_reason as string | null) ?? null }));
}

/**
 * An operator's verdict on an unsettleable record, with the reason: `charged` (checked at Stripe: done, its
 * reservation stays spent) or not (declined with the reason, its reservation given back). Kept either way.
 */
export async function resolveUnsettleable(
  sql: SqlExecutor,
  scope: string,
  recordKey: string,
  verdict: { charged: boolean; reason: string; objectId?: string },
  now: Date,
): Promise<void> {
  if (verdict.reason.trim() === "") throw new GuardInputError("resolving an unsettleable record needs a reason");
  const reason = `resolved by an operator: ${verdict.reason}`;
  const where = `${recordKeyWhere} AND state = 'unsettleable'`;
  const changed = verdict.charged
    ? await sql.query<{ settled: number }>(
        `UPDATE guard_records SET state = 'done', object_id = coalesce($3, object_id), held_reason = $4, updated_at = $5
          WHERE ${where} RETURNING 1 AS settled`,
        [scope, recordKey, verdict.objectId ?? null, reason, now],
      )
    : await sql.query<{ settled: string | number }>(
        givingBackReservation("settled", `UPDATE guard_records SET state = 'declined', decline_reason = $3, updated_at = $4 WHERE ${where}`, reservation, "$4"),
        [scope, recordKey, reason, now],
      );
  const settled = verdict.charged ? changed.length : Number((changed[0] as { settled?: string | number } | undefined)?.settled ?? 0);
  if (settled !== 1) throw new BillingStateError(`${scope} ${recordKey} is not an unsettleable record`);
}
