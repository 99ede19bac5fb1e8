// chargeguard/infra: Pulumi components for Service Bus queues safe for Stripe billing and the stack config loader.
// The tuning maths they are computed from is its own room (chargeguard/tuning), re-exported here for convenience.
export { BillingNamespace, type BillingNamespaceArgs, type BillingAlertReceivers } from "./components/billing-namespace.js";
export { BillingQueue, type BillingQueueArgs, type AccessGrant, type PrincipalType } from "./components/billing-queue.js";
export {
  tuneQueue,
  worstCaseStripeMs,
  deliveryBudgetMs,
  coverageProblems,
  stripeBackoffMs,
  TuningError,
  LOCK_MIN_MS,
  LOCK_MAX_MS,
  MIN_DELIVERY_COUNT,
  MAX_DELIVERY_COUNT,
  type StripeBudget,
  type LatencyBudget,
  type ConsumerSettings,
  type QueueTuning,
} from "../tuning/index.js";
export { parseIsoDuration, formatIsoDuration, DurationFormatError } from "../tuning/index.js";
export {
  loadStackConfig,
  readStackConfigFile,
  toPulumiConfig,
  fromPulumiConfig,
  type StackConfigLocation,
  type StackConfigFile,
  type LoadedStackConfig,
} from "./load-stack-config.js";
export {
  parseStackConfig,
  StackConfigError,
  PROJECT,
  type StackConfig,
  type QueueConfig,
  type NamespaceConfig,
  type AlertsConfig,
  type Sku,
} from "./stack-config.js";
export { decodeQueueMetadata, encodeQueueMetadata, type BillingQueueMetadata } from "./queue-metadata.js";
export { queueAlertSpecs, defaultSeverities, type AlertSeverities, type QueueAlertSpec } from "./alert-specs.js";
export {
  builtInRoles,
  consumerQueueRights,
  producerQueueRights,
  operatorQueueRights,
  roleAssignmentName,
  roleGuidOf,
  type QueueRights,
  type SasRight,
  type ServiceBusDataRole,
} from "./access.js";
export { defineStack, buildStack, type BuiltStack } from "./program/stack.js";
export { billingPolicies } from "./policy/policies.js";
