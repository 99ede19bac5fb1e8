// One row of guard_records, the one table behind every billing (any flow, any identity): its shape in TypeScript,
// the lease that holds it, and the mapping from a database row.
import type { StoreLease } from "./guard-store.js";

/** `unsettleable`: the reconciler cannot settle it; held for an operator (held-records.ts). */
export type GuardRecordState = "pending" | "done" | "declined" | "unsettleable";

export interface GuardRecord {
  scope: string;
  key: Record<string, string | number>;
  flow: string;
  state: GuardRecordState;
  idempotencyKey: string;
  fingerprint: string;
  payload: Record<string, unknown>;
  spend: { period: string; currency: string; amount: number } | null;
  /** Recovery points: step name -> the Stripe object id it produced. */
  steps: Record<string, string>;
  objectId: string | null;
  result: Record<string, unknown> | null;
  declineReason: string | null;
  attempts: number;
  lockedUntil: Date | null;
  lockOwner: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface GuardLease extends StoreLease {
  scope: string;
  recordKey: string;
  owner: string;
  token: string;
}

export interface GuardRow {
  scope: string;
  record_key: string;
  flow: string;
  state: GuardRecordState;
  idempotency_key: string;
  fingerprint: string;
  payload: Record<string, unknown> | string;
  spend_period: string | null;
  spend_currency: string | null;
  spend_amount: string | number | null;
  steps: Record<string, string> | string;
  object_id: string | null;
  result: Record<string, unknown> | string | null;
  decline_reason: string | null;
  attempts: string | number;
  locked_until: Date | string | null;
  lock_owner: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  [column: string]: unknown;
}

/** The WHERE condition of one record, with the scope as $1 and the record key as $2. */
export const recordKeyWhere = "scope = $1 AND record_key = $2";

export const json = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);
const date = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

export function toGuardRecord(row: GuardRow): GuardRecord {
  return {
    scope: row.scope,
    key: JSON.parse(row.record_key) as Record<string, string | number>,
    flow: row.flow,
    state: row.state,
    idempotencyKey: row.idempotency_key,
    fingerprint: row.fingerprint,
    payload: json(row.payload),
    spend:
      row.spend_period === null || row.spend_currency === null || row.spend_amount === null
        ? null
        : { period: row.spend_period, currency: row.spend_currency, amount: Number(row.spend_amount) },
    steps: json(row.steps),
    objectId: row.object_id,
    result: row.result === null ? null : json(row.result),
    declineReason: row.decline_reason,
    attempts: Number(row.attempts),
    lockedUntil: row.locked_until === null ? null : date(row.locked_until),
    lockOwner: row.lock_owner,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** What a batch sorts by: the ledger row a record spends against first, then the record itself. */
export interface RecordOrder {
  period: string;
  currency: string;
  scope: string;
  recordKey: string;
}

/**
 * Items in (period, currency, scope, record key) order, with their original positions. Batches written at the same
 * time (by this replica or by others) then take the ledger's rows and the records in one order and cannot deadlock.
 */
export function sortedForLocks<T>(items: T[], order: (item: T) => RecordOrder): { item: T; at: number }[] {
  const by = (a: RecordOrder, b: RecordOrder) =>
    compare(a.period, b.period) || compare(a.currency, b.currency) || compare(a.scope, b.scope) || compare(a.recordKey, b.recordKey);
  return items.map((item, at) => ({ item, at })).sort((a, b) => by(order(a.item), order(b.item)));
}
