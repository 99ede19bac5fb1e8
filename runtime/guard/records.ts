// Rows of billing_records as BillingRecord, and the fingerprint that tells one billing event from another.
import { createHash } from "node:crypto";
import { canonicalDocument } from "../canonical-json.js";
import type { BillingRecord, BillingState, ClaimInput } from "./types.js";

export interface BillingRow {
  customer_id: string;
  billing_period: string;
  state: BillingState;
  idempotency_key: string;
  fingerprint: string;
  amount_cents: string | number;
  currency: string;
  payment_intent_id: string | null;
  attempts: string | number;
  locked_until: Date | string | null;
  lock_owner: string | null;
  lease_token: string | null;
  request: Record<string, unknown> | string;
  decline_reason: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  [column: string]: unknown;
}

const toDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

export function toRecord(row: BillingRow): BillingRecord {
  return {
    customerId: row.customer_id,
    billingPeriod: row.billing_period,
    state: row.state,
    idempotencyKey: row.idempotency_key,
    fingerprint: row.fingerprint,
    amountCents: Number(row.amount_cents),
    currency: row.currency,
    paymentIntentId: row.payment_intent_id,
    attempts: Number(row.attempts),
    lockedUntil: row.locked_until === null ? null : toDate(row.locked_until),
    lockOwner: row.lock_owner,
    request: typeof row.request === "string" ? (JSON.parse(row.request) as Record<string, unknown>) : row.request,
    declineReason: row.decline_reason,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** sha256 hex of what makes a billing event itself: amount, currency, key and the exact Stripe request. */
export function claimFingerprint(input: Pick<ClaimInput, "amountCents" | "currency" | "idempotencyKey" | "request">): string {
  const canonical = canonicalDocument({
    amountCents: input.amountCents,
    currency: input.currency,
    idempotencyKey: input.idempotencyKey,
    request: input.request,
  });
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

/** Says how a claim differs from the recorded one, in words an operator can act on. */
export function mismatchReason(record: BillingRecord, input: ClaimInput): string {
  const what = `customer ${record.customerId} period ${record.billingPeriod} is already recorded`;
  if (record.amountCents !== input.amountCents || record.currency !== input.currency) {
    return `${what} for ${record.amountCents} ${record.currency}; this event asks for ${input.amountCents} ${input.currency}`;
  }
  if (record.idempotencyKey !== input.idempotencyKey) {
    return `${what} under idempotency key ${record.idempotencyKey}; this event brings ${input.idempotencyKey}`;
  }
  return `${what} with other Stripe request parameters (same amount and key): refusing to send a different request`;
}
