// Claims and outcomes written together (group commit, batcher.ts): every claim queued while the previous batch was
// written goes in one call of `chargeguard_guard_claim_many` (migrations.ts), one subtransaction per claim; every
// "done" queued meanwhile in one UPDATE. Both in (period, currency, scope, record key) order, so batches written at
// once take rows in one order.
import { sortedForLocks, type GuardLease, type GuardRow } from "./guard-record.js";
import type { SqlExecutor } from "./sql-client.js";
import type { StoreClaimRequest } from "./guard-store.js";

/** A claim checked and stamped, waiting for its batch. */
export interface QueuedClaim {
  request: StoreClaimRequest;
  cap: number | undefined;
  now: Date;
  lockedUntil: Date;
  token: string;
}

/** What the database answered for one claim: taken by it, or the record as it stands; over the cap, no row. */
export type ClaimAnswer = { is_claimed: boolean; row_json: GuardRow | string | null; over_cap: boolean };

/** A "done" to record, stamped with the guard's clock. */
export interface QueuedDone {
  lease: GuardLease;
  objectId: string;
  result: Record<string, unknown> | undefined;
  now: Date;
}

const claimOrder = ({ request }: QueuedClaim) => ({
  period: request.spend?.period ?? "",
  currency: request.spend?.currency ?? "",
  scope: request.scope,
  recordKey: request.recordKey,
});

/** One statement for a batch of claims; each claim's answer at its own position (an Error where none came back). */
export async function writeClaims(sql: SqlExecutor, claims: QueuedClaim[]): Promise<(ClaimAnswer | Error)[]> {
  const sorted = sortedForLocks(claims, claimOrder);
  const column = <T>(pick: (claim: QueuedClaim) => T): T[] => sorted.map(({ item }) => pick(item));
  const rows = await sql.query<ClaimAnswer & { item: number }>(
    `SELECT item, is_claimed, row_json, over_cap
       FROM chargeguard_guard_claim_many($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::text[],
                                         $8::text[], $9::bigint[], $10::bigint[], $11::timestamptz[], $12::timestamptz[],
                                         $13::text[], $14::text[])`,
    [
      column((c) => c.request.scope),
      column((c) => c.request.recordKey),
      column((c) => c.request.flow),
      column((c) => c.request.idempotencyKey),
      column((c) => c.request.fingerprint),
      column((c) => JSON.stringify(c.request.payload)),
      column((c) => c.request.spend?.period ?? null),
      column((c) => c.request.spend?.currency ?? null),
      column((c) => c.request.spend?.amount ?? null),
      column((c) => c.cap ?? null),
      column((c) => c.now),
      column((c) => c.lockedUntil),
      column((c) => c.request.owner),
      column((c) => c.token),
    ],
  );
  const answers: (ClaimAnswer | undefined)[] = new Array<ClaimAnswer | undefined>(claims.length);
  for (const row of rows) {
    const entry = sorted[Number(row.item) - 1];
    if (entry) answers[entry.at] = row;
  }
  // An Error only where one is missing: building one per claim (its stack trace) cost more than the claim's JavaScript.
  return Array.from(answers, (answer) => answer ?? new Error("chargeguard_guard_claim_many returned no row for this claim"));
}

/** One UPDATE for a batch of outcomes; true for each one that moved its record from pending to done. */
export async function writeDone(sql: SqlExecutor, done: QueuedDone[]): Promise<boolean[]> {
  const [only] = done;
  if (done.length === 1 && only) {
    // Alone in its batch (the common case at low load): a plain keyed UPDATE plans in a fraction of the join's time.
    const rows = await sql.query(
      `UPDATE guard_records
          SET state = 'done', object_id = $3, result = $4::jsonb, locked_until = NULL, lock_owner = NULL, lease_token = NULL,
              updated_at = $5
        WHERE scope = $1 AND record_key = $2 AND state = 'pending'
        RETURNING 1`,
      [only.lease.scope, only.lease.recordKey, only.objectId, only.result === undefined ? null : JSON.stringify(only.result), only.now],
    );
    return [rows.length === 1];
  }
  const sorted = sortedForLocks(done, (d) => ({ period: "", currency: "", scope: d.lease.scope, recordKey: d.lease.recordKey })).map(({ item }) => item);
  const rows = await sql.query<{ scope: string; record_key: string; object_id: string }>(
    `UPDATE guard_records r
        SET state = 'done', object_id = k.object_id, result = k.result, locked_until = NULL, lock_owner = NULL,
            lease_token = NULL, updated_at = k.now
       FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[]) AS k(scope, record_key, object_id, result, now)
      WHERE r.scope = k.scope AND r.record_key = k.record_key AND r.state = 'pending'
      RETURNING r.scope, r.record_key, r.object_id`,
    [
      sorted.map((d) => d.lease.scope),
      sorted.map((d) => d.lease.recordKey),
      sorted.map((d) => d.objectId),
      sorted.map((d) => (d.result === undefined ? null : JSON.stringify(d.result))),
      sorted.map((d) => d.now),
    ],
  );
  // The same record twice in one batch updates its row once: only the object written counts as recorded, and only
  // once (two deliveries of one billing that both got Stripe's replayed object: the second is a no-op, as it would be
  // in a later batch), so telemetry counts the billing charged once.
  const written = new Set(rows.map((row) => JSON.stringify([row.scope, row.record_key, row.object_id])));
  return done.map((d) => written.delete(JSON.stringify([d.lease.scope, d.lease.recordKey, d.objectId])));
}
