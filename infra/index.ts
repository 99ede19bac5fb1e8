// chargeguard/infra: Pulumi components for Service Bus queues safe for Stripe billing and the stack config loader.
// The tuning maths they are computed from is its own room (chargeguard/tuning), re-exported here for convenience.
export { BillingNamespace, type BillingNamespaceArgs, type BillingAlertReceivers } from "./components/billing-namespace.js";
export { BillingQueue, type BillingQueueArgs, type AccessGrant, type PrincipalType } from "./components/billing-queue.js";
export { ConsumerIdentity, consumerQueueRoles, type ConsumerIdentityArgs, type IdentityGrant } from "./components/consumer-identity.js";
export { ConsumerEnvironment, type ConsumerEnvironmentArgs } from "./components/consumer-environment.js";
export { ConsumerApp, type ConsumerAppArgs, type VaultSecretReference } from "./components/consumer-app.js";
export { ScalerIdentity, type ScalerIdentityArgs } from "./components/scaler-identity.js";
export { consumerProbes, HEALTH_PORT, type ProbeSpec } from "./consumer-probes.js";
export { GuardDatabase, type GuardDatabaseArgs, type EntraAdministrator } from "./components/guard-database.js";
export { BillingSecrets, type BillingSecretsArgs } from "./components/billing-secrets.js";
export { PrivateNetwork, privateDnsZones, postgresDnsZone, type PrivateNetworkArgs } from "./components/private-network.js";
export { PrivateLink, type PrivateLinkArgs } from "./components/private-link.js";
export { Observability, type ObservabilityArgs } from "./components/observability.js";
export { ServiceAlerts, type ServiceAlertsArgs } from "./components/service-alerts.js";
export { BillingHealth, type BillingHealthArgs } from "./components/billing-health.js";
export {
  billingHealthAlertSpecs,
  billingHealthWorkbook,
  type BillingHealthThresholds,
  type BillingHealthSeverities,
  type BillingHealthAlertSpec,
} from "./billing-health-specs.js";
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
  replicaBounds,
  guardPoolSize,
  replicaConnections,
  ReplicaBudgetError,
  STRIPE_LIVE_RATE_LIMIT_PER_SECOND,
  STRIPE_ENDPOINT_RATE_LIMIT_PER_SECOND,
  messageHoldMs,
  consumerFitProblems,
  type ConsumerConcurrency,
  type ReplicaBudget,
  type ReplicaBounds,
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
