// chargeguard/runtime/guard: the billing record behind every charge. The guard (Guard) is in the root export; here
// are its parts for those who build on them: the primitive, the store interface and its decorator, leases, spend
// caps, Entra sign-in constants and the health read by telemetry.
export { defaultLeaseMs } from "./guard.js";
export { POSTGRES_ENTRA_SCOPE, DEFAULT_TOKEN_REFRESH_MARGIN_MS } from "./entra-password.js";
export type { GuardRecord, GuardRecordState, GuardLease } from "./guard-record.js";
export {
  runGuarded,
  stepIdempotencyKey,
  type GuardRunOptions,
  type GuardErrorClass,
  type GuardPhaseHooks,
} from "./guarded-run.js";
export type { ForgetGround, GuardStore, StoreClaim, StoreClaimRequest, StoreLease, Spend } from "./guard-store.js";
export { decorateStore, type AroundCall } from "./decorate-store.js";
export type { SpendCapOptions } from "./spend-caps.js";
export type { PeriodSpend } from "./period-spend.js";
export type { GuardHealth, PeriodCurrencySpend } from "./health.js";
// The pool's connection, statement and idle-in-transaction timeouts (a hung or failing-over server is an outage).
export { pgTimeouts, type PgTimeouts } from "./pg-client.js";
