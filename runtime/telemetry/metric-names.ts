// chargeguard's own instruments and their bounded attribute values. Names follow OpenTelemetry's guidance: a
// namespace, pluralised counts without `_total`, UCUM units, `*.limit` / `*.usage` / `*.utilization` for capacity.
// Every attribute value below comes from a closed set (or the queue/period/currency, bounded by configuration):
// never a customer id, an idempotency key or an amount.

export const meterName = "chargeguard";

export const metricNames = {
  outcomes: "chargeguard.billing.outcomes",
  chargedAmount: "chargeguard.charged.amount",
  duplicatesPrevented: "chargeguard.duplicates_prevented",
  retriesScheduled: "chargeguard.retries.scheduled",
  deadLetters: "chargeguard.dead_letters",
  lockRenewalFailures: "chargeguard.lock.renewal.failures",
  guardOperationDuration: "chargeguard.guard.operation.duration",
  stripeRequestDuration: "chargeguard.stripe.request.duration",
  spendLimit: "chargeguard.spend.limit",
  spendUsage: "chargeguard.spend.usage",
  spendUtilization: "chargeguard.spend.utilization",
  pendingBillings: "chargeguard.pending.billings",
  oldestPendingAge: "chargeguard.pending.oldest_age",
  dependencyThrottled: "chargeguard.dependency.throttled",
  breakerState: "chargeguard.dependency.breaker.state",
  dependencyPaused: "chargeguard.dependency.paused",
} as const;

export const attributeNames = {
  outcome: "chargeguard.outcome",
  preventedBy: "chargeguard.prevented_by",
  source: "chargeguard.source",
  currency: "chargeguard.currency",
  billingPeriod: "chargeguard.billing_period",
  deadLetterReason: "chargeguard.dead_letter.reason",
  guardOperation: "chargeguard.guard.operation",
  stripeOperation: "chargeguard.stripe.operation",
  attempt: "chargeguard.attempt",
  dependency: "chargeguard.dependency",
  limiter: "chargeguard.limiter",
} as const;

/**
 * What happened to a billing. `charged` and `declined` count a billing once, when its record turns so; the others
 * count deliveries. A delivery that meets a recorded decline is `already_billed` (its billing was decided before).
 * `configuration` (credentials, permissions, a vault key's allowlist) is one more than the issue lists.
 */
export const billingOutcomes = [
  "charged",
  "declined",
  "already_billed",
  "unknown",
  "invalid",
  "mismatch",
  "spend_cap",
  "busy",
  "configuration",
] as const;
export type BillingOutcomeName = (typeof billingOutcomes)[number];

/** Who stopped a second charge: the guard's record (billed, declined), its live lease, or Stripe's idempotency replay. */
export const preventedBy = ["guard_billed", "guard_declined", "guard_busy", "stripe_replayed"] as const;
export type PreventedBy = (typeof preventedBy)[number];

/**
 * Why the delivery that met the duplicate exists: the broker redelivered it (lock lost, crash), it is one of our
 * scheduled retries, an operator resubmitted it from the DLQ, or another message carried the same billing
 * (`other`: a producer's resend, or a twin delivered to another replica at the same time).
 */
export const duplicateSources = ["redelivery", "retry", "resubmission", "other"] as const;
export type DuplicateSource = (typeof duplicateSources)[number];

/** Dead-letter reasons the settlement table writes; anything else is reported as `other`. */
export const deadLetterReasons = [
  "InvalidEvent",
  "BillingRecordMismatch",
  "StripeIdempotencyConflict",
  "StripeInvalidRequest",
  "SpendCapExceeded",
  "StripeConfigurationError",
  "RetryAttemptsExhausted",
] as const;

export const guardOperations = ["claim", "save_step", "mark_charged", "mark_declined", "release_lease", "forget"] as const;
export type GuardOperation = (typeof guardOperations)[number];

/** Seconds: from a fast database round trip to a Stripe call at its timeout with a retry. */
export const durationBucketsSeconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80];
