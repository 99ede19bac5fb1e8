// chargeguard/tuning: the latency-budget maths (pure: no Pulumi, no SDK). One Stripe budget in, every number that
// must agree out. Infra deploys these numbers, the runtime checks its receiver against them, the templates write
// them into a generated project, and the lint rule's copy of the worst case is proven equal by a test.
export {
  tuneQueue,
  worstCaseStripeMs,
  deliveryBudgetMs,
  coverageProblems,
  stripeBackoffMs,
  TuningError,
  LOCK_MIN_MS,
  LOCK_MAX_MS,
  LOCK_STEP_MS,
  MIN_DELIVERY_COUNT,
  MAX_DELIVERY_COUNT,
  DEFAULT_PROCESSING_MS,
  DEFAULT_SAFETY_MARGIN_MS,
  DEFAULT_MAX_DELIVERY_COUNT,
  MIN_TTL_MS,
  DUPLICATE_WINDOW_MIN_MS,
  DUPLICATE_WINDOW_MAX_MS,
  MAX_STRIPE_RETRIES,
  DEFAULT_STRIPE_BUDGET,
  MAX_STRIPE_TIMEOUT_MS,
  type StripeBudget,
  type LatencyBudget,
  type ConsumerSettings,
  type QueueTuning,
} from "./queue-tuning.js";
export {
  consumerQueueRights,
  producerQueueRights,
  operatorQueueRights,
  type QueueRights,
  type SasRight,
  type ServiceBusDataRole,
} from "./queue-rights.js";
export { parseIsoDuration, formatIsoDuration, describeMs, DurationFormatError } from "./iso-duration.js";
export {
  replicaBounds,
  guardPoolSize,
  replicaConnections,
  FLEET_BUDGET_CONNECTIONS,
  connectionBudgetPerConsumer,
  stripeRatePerConsumer,
  ReplicaBudgetError,
  STRIPE_LIVE_RATE_LIMIT_PER_SECOND,
  STRIPE_TEST_RATE_LIMIT_PER_SECOND,
  STRIPE_ENDPOINT_RATE_LIMIT_PER_SECOND,
  ROLLOUT_REVISIONS,
  DEFAULT_STRIPE_RATE_UTILIZATION,
  DEFAULT_FASTEST_STRIPE_CALL_MS,
  DEFAULT_RESERVED_CONNECTIONS,
  CONTAINER_APPS_MAX_REPLICAS,
  ZONE_REDUNDANT_MIN_REPLICAS,
  CONTAINER_APPS_MAX_GRACE_SECONDS,
  type ReplicaBudget,
  type ReplicaBounds,
  type ConnectionShare,
  gracePeriodSeconds,
} from "./replica-bounds.js";
export {
  messageHoldMs,
  holdProblems,
  concurrencyProblems,
  waitsForStripeSlot,
  describeHold,
  SERIAL_CONSUMER,
  type ConsumerConcurrency,
} from "./message-hold.js";
export { consumerFitProblems, type QueueLock } from "./consumer-fit.js";
export { STARTUP_PROBE, STARTUP_WINDOW_MS } from "./startup.js";
export { receiveStallMs, inFlightStallMs, RECEIVE_PROBE_EVERY_MS, DEFAULT_LOCK_DURATION_MS } from "./liveness.js";
export { flowNames, flowStripeCalls, isFlowName, maxInvoiceItems, type FlowName } from "./flow-calls.js";
