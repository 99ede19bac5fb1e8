// chargeguard/infra: Pulumi components for Service Bus queues safe for Stripe billing and the stack config loader.
// The tuning maths they are computed from (tuneQueue, replicaBounds, the queue rights, ...) is imported from its own
// door, chargeguard/tuning, which needs no Pulumi: each name has one entry point (test/runtime/entry-points.test.ts).
export { BillingNamespace, type BillingNamespaceArgs, type BillingAlertReceivers } from "./components/billing-namespace.js";
export { BillingQueue, type BillingQueueArgs, type AccessGrant, type PrincipalType } from "./components/billing-queue.js";
export { ConsumerIdentity, consumerQueueRoles, type ConsumerIdentityArgs, type IdentityGrant } from "./components/consumer-identity.js";
export { ConsumerEnvironment, type ConsumerEnvironmentArgs } from "./components/consumer-environment.js";
export { ConsumerApp, type ConsumerAppArgs, type VaultSecretReference } from "./components/consumer-app.js";
export { ScalerIdentity, type ScalerIdentityArgs } from "./components/scaler-identity.js";
export { consumerProbes, HEALTH_PORT, type ProbeSpec } from "./specs/index.js";
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
} from "./specs/index.js";
export {
  loadStackConfig,
  readStackConfigFile,
  toPulumiConfig,
  fromPulumiConfig,
  type StackConfigLocation,
  type StackConfigFile,
  type LoadedStackConfig,
} from "./config/index.js";
export {
  parseStackConfig,
  StackConfigError,
  PROJECT,
  type StackConfig,
  type QueueConfig,
  type NamespaceConfig,
  type AlertsConfig,
  type Sku,
} from "./config/index.js";
export {
  decodeQueueMetadata,
  encodeQueueMetadata,
  type BillingQueueMetadata,
  queueAlertSpecs,
  defaultSeverities,
  type AlertSeverities,
  type QueueAlertSpec,
  builtInRoles,
  roleAssignmentName,
  roleGuidOf,
} from "./specs/index.js";
export { defineStack, buildStack, type BuiltStack } from "./program/stack.js";
export { billingPolicies } from "./policy/policies.js";
