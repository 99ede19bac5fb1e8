// The billing guard's contract: one row per (customer, billing period) that says whether Stripe was charged,
// who may charge it now (a lease), and how much of the period's spend cap is taken.
import type { Clock } from "../clock.js";
import type { GuardDatabaseOptions } from "./open-sql-client.js";
import type { SpendCapOptions } from "./spend-caps.js";

/** `pending -> charged -> completed`, or `pending -> declined`. */
export type BillingState = "pending" | "charged" | "completed" | "declined";

export interface BillingRecord {
  customerId: string;
  billingPeriod: string;
  state: BillingState;
  /** The Stripe idempotency key used for every attempt of this billing. */
  idempotencyKey: string;
  /** sha256 hex of the canonical claim (amount, currency, key, request): a different event is refused. */
  fingerprint: string;
  amountCents: number;
  currency: string;
  paymentIntentId: string | null;
  /** How many times the record was claimed (first claim = 1). */
  attempts: number;
  /** The current lease: null once released or settled. */
  lockedUntil: Date | null;
  lockOwner: string | null;
  /** The exact Stripe create params, stored so the reconciler can replay them. */
  request: Record<string, unknown>;
  declineReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ClaimInput {
  customerId: string;
  billingPeriod: string;
  /** Positive integer, smallest currency unit. */
  amountCents: number;
  currency: string;
  idempotencyKey: string;
  /** The exact Stripe create params, stored so reconcile can replay them. */
  request: Record<string, unknown>;
}

/** Proof of holding the right to call Stripe for one record, until `lockedUntil` or until released. */
export interface Lease {
  customerId: string;
  billingPeriod: string;
  owner: string;
  token: string;
  lockedUntil: Date;
}

export type ClaimResult =
  /** Charge now, holding the lease. */
  | { status: "claimed"; record: BillingRecord; lease: Lease }
  /** A live lease is held (by another consumer, or another handler of the same one): try again later. */
  | { status: "busy"; record: BillingRecord; retryAfterMs: number }
  /** Charged or completed already: complete the message without calling Stripe. */
  | { status: "already-billed"; record: BillingRecord }
  /** A decline is recorded: complete the message without calling Stripe again. */
  | { status: "declined"; record: BillingRecord }
  /** Same customer and period, but another amount, currency, key or request: refused. */
  | { status: "mismatch"; record: BillingRecord; reason: string }
  /** Reserving the amount would take the period past its cap. `reservedCents` is reserved + charged so far. */
  | { status: "cap-exceeded"; capCents: number; reservedCents: number; reason: string };

export interface BillingGuardOptions extends SpendCapOptions, GuardDatabaseOptions {
  /** All times (leases, timestamps, staleness) come from here; default: the system clock. */
  clock?: Clock;
  /** How long a claim holds the right to call Stripe; default 120000. Longer than a Stripe call's worst case. */
  leaseMs?: number;
}

/** One currency's spend in a period, in its minor units (or, asked without a currency, all of them summed). */
export interface PeriodSpend {
  /** The cap in force at the last reservation; null: none (or, summed over currencies, caps that differ). */
  capCents: number | null;
  /** Claimed and not yet charged or declined. */
  reservedCents: number;
  chargedCents: number;
}
