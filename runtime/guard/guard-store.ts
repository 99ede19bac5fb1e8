// What the guard primitive (guarded-run.ts) needs from a persistence: a claim that is durable before Stripe is
// called, recovery points, and the outcome. The guard (guard.ts, over guard_records) is the one store; in-memory
// stores in tests and the decorators (the database's breaker, telemetry) implement every method, each one
// required, so a wrapper that leaves one out does not compile (decorate-store.ts).

/** The right to call Stripe for one record, until `lockedUntil` or until released. */
export interface StoreLease {
  lockedUntil: Date;
}

/** Money a record spends against its period's cap, in the currency's minor units. */
export interface Spend {
  /** The cap's period, e.g. "2026-10" or a day "2026-10-14": 1-64 characters. */
  period: string;
  /** Lower-case ISO 4217. */
  currency: string;
  /** Positive integer, minor units. */
  amount: number;
}

export interface StoreClaimRequest {
  scope: string;
  /** The identity fields the caller named. */
  key: Readonly<Record<string, string | number>>;
  /** Canonical JSON of `key`: the record's identity within its scope. */
  recordKey: string;
  flow: string;
  idempotencyKey: string;
  /** sha256 of the canonical (flow, key, payload, spend): same identity with anything else is a mismatch. */
  fingerprint: string;
  payload: Readonly<Record<string, unknown>>;
  spend?: Spend;
  owner: string;
  /** How long the claim holds the lease; absent: the store's default. */
  leaseMs?: number;
}

export type StoreClaim<L extends StoreLease = StoreLease> =
  | { status: "claimed"; lease: L; attempt: number; steps: Readonly<Record<string, string>>; createdAt: Date }
  | { status: "busy"; retryAfterMs: number }
  | { status: "already-done"; objectId: string | null }
  | { status: "declined"; reason: string | null }
  | { status: "mismatch"; reason: string }
  | { status: "cap-exceeded"; reason: string; capCents: number; reservedCents: number };

/**
 * Why a refused record may be forgotten. Required by `forget`, so a decorator that drops it does not compile.
 * - `first-attempt`: the refusal came on the record's first attempt (a vault's cap or key, a request found invalid
 *   late, Stripe refusing it): no earlier attempt could have left anything at Stripe.
 * - `refused-under-key`: Stripe refused this attempt's request as invalid (a 400, not an idempotency error) under
 *   the record's own key, after earlier attempts whose outcome was unknown. A request committed under that key would
 *   have been replayed, one still executing answered 409: Stripe holds nothing for the key. That holds only while
 *   Stripe keeps the key, `keyWindowMs` from the record's creation by the store's clock (past it the same key is a
 *   new request, and the refusal says nothing about the first).
 */
export type ForgetGround = { kind: "first-attempt" } | { kind: "refused-under-key"; keyWindowMs: number };

export interface GuardStore<L extends StoreLease = StoreLease> {
  /** Durable (committed) before it resolves. A new record reserves its spend in the same statement. */
  claim(request: StoreClaimRequest): Promise<StoreClaim<L>>;
  /** A recovery point: the Stripe object a named step produced. Durable before it resolves. */
  saveStep(lease: L, step: string, objectId: string): Promise<void>;
  /** The work is done: keeps the spend committed. True when this call turned the record done (false: it already was). */
  markDone(lease: L, outcome: { objectId: string; result?: Record<string, unknown> }): Promise<boolean>;
  /** Declined (card refused): gives the reservation back. True when this call turned the record declined. */
  markDeclined(lease: L, outcome: { reason: string; objectId?: string }): Promise<boolean>;
  /** Outcome unknown: the record stays pending and reserved, free for the retry or the reconciler. */
  release(lease: L): Promise<void>;
  /**
   * A refusal that proves Stripe holds nothing for the record: removes it and gives its reservation back, in one
   * statement, so whatever comes next (the dead letter resubmitted, a redelivery) starts from nothing. What proves it
   * is `ground` (see ForgetGround); a record with a recovery point is never forgotten (Stripe holds that step's
   * object). False, changing nothing, when the record is not that (the ground does not hold, a step recorded, the
   * lease taken over): then it is released instead and stays for recovery.
   */
  forget(lease: L, ground: ForgetGround): Promise<boolean>;
}
