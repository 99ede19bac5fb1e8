// Charges and completions written together: what is queued while the previous batch is written goes in one UPDATE.
// A batch of one takes a plain keyed UPDATE; larger ones join an unnest of the keys, in (period, customer) order.
import { recordKey, sortedByKey, type BillingKey } from "./billing-key.js";
import type { SqlExecutor } from "./sql-client.js";
import type { Lease } from "./types.js";

/** A charge to record, stamped with the guard's clock. */
export type QueuedCharge = { lease: Lease; paymentIntentId: string; now: Date };
/** A completion to record, stamped with the guard's clock. */
export type QueuedCompletion = BillingKey & { now: Date };

/** One UPDATE for a batch of charges; true for each one that moved its record from pending to charged. */
export async function writeCharges(sql: SqlExecutor, charges: QueuedCharge[]): Promise<boolean[]> {
  const [only] = charges;
  if (charges.length === 1 && only) {
    // Alone in its batch (the common case at low load): a plain keyed UPDATE plans in a fraction of the join's time.
    const rows = await sql.query(
      `UPDATE billing_records
          SET state = 'charged', payment_intent_id = $3, locked_until = NULL, lock_owner = NULL, lease_token = NULL, updated_at = $4
        WHERE ${recordKey} AND state = 'pending'
        RETURNING 1`,
      [only.lease.customerId, only.lease.billingPeriod, only.paymentIntentId, only.now],
    );
    return [rows.length === 1];
  }
  const sorted = sortedByKey(charges, (charge) => charge.lease);
  const rows = await sql.query<{ customer_id: string; billing_period: string; payment_intent_id: string }>(
    `UPDATE billing_records r
        SET state = 'charged', payment_intent_id = k.payment_intent_id, locked_until = NULL, lock_owner = NULL,
            lease_token = NULL, updated_at = k.now
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS k(customer_id, billing_period, payment_intent_id, now)
      WHERE r.customer_id = k.customer_id AND r.billing_period = k.billing_period AND r.state = 'pending'
      RETURNING r.customer_id, r.billing_period, r.payment_intent_id`,
    [
      sorted.map(({ item }) => item.lease.customerId),
      sorted.map(({ item }) => item.lease.billingPeriod),
      sorted.map(({ item }) => item.paymentIntentId),
      sorted.map(({ item }) => item.now),
    ],
  );
  // The same billing twice in one batch updates its row once: only the PaymentIntent written counts as recorded.
  const written = new Set(rows.map((row) => JSON.stringify([row.customer_id, row.billing_period, row.payment_intent_id])));
  return charges.map((c) => written.has(JSON.stringify([c.lease.customerId, c.lease.billingPeriod, c.paymentIntentId])));
}

/** One UPDATE for a batch of completions, without waiting for the disk flush; a key not charged is skipped. */
export async function writeCompletions(sql: SqlExecutor, keys: QueuedCompletion[]): Promise<void[]> {
  const [only] = keys;
  if (keys.length === 1 && only) {
    await sql.query(
      `UPDATE billing_records SET state = 'completed', updated_at = $3
         FROM (SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait
        WHERE ${recordKey} AND state = 'charged'`,
      [only.customerId, only.billingPeriod, only.now],
    );
    return [undefined];
  }
  const sorted = sortedByKey(keys, (key) => key).map(({ item }) => item);
  await sql.query(
    `UPDATE billing_records r SET state = 'completed', updated_at = k.now
       FROM (SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait,
            unnest($1::text[], $2::text[], $3::timestamptz[]) AS k(customer_id, billing_period, now)
      WHERE r.customer_id = k.customer_id AND r.billing_period = k.billing_period AND r.state = 'charged'`,
    [sorted.map((k) => k.customerId), sorted.map((k) => k.billingPeriod), sorted.map((k) => k.now)],
  );
  return keys.map(() => undefined);
}
