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
