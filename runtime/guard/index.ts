// chargeguard/runtime/guard: the billing record behind every charge. The guard primitive (Guard) is in the root
// export; here are its parts for those who build on them: the PaymentIntent-era BillingGuard, the store interface and
// its adapters, leases, spend caps, Entra sign-in constants and the health read by telemetry.
export { BillingGuard, defaultLeaseMs } from "./billing-guard.js";
export { POSTGRES_ENTRA_SCOPE, DEFAULT_TOKEN_REFRESH_MARGIN_MS } from "./entra-password.js";
export type {
  BillingState,
  BillingRecord,
  ClaimInput,
  ClaimResult,
  Lease,
  BillingGuardOptions,
  PeriodSpend,
} from "./types.js";
export type { GuardRecord, GuardRecordState, GuardLease } from "./record-guard.js";
export {
  runGuarded,
  stepIdempotencyKey,
  type GuardRunOptions,
  type GuardErrorClass,
  type GuardPhaseHooks,
} from "./guarded-run.js";
export type { GuardStore, StoreClaim, StoreClaimRequest, StoreLease, Spend } from "./guard-store.js";
export { billingRecordStore, type BillingRecordPort } from "./billing-store.js";
export type { SpendCapOptions } from "./spend-caps.js";
export type { GuardHealth, PeriodCurrencySpend } from "./health.js";
// The pool's connection, statement and idle-in-transaction timeouts (a hung or failing-over server is an outage).
export { pgTimeouts, type PgTimeouts } from "./pg-client.js";
