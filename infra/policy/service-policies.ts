// The policies of the whole service: private access, diagnostics, delete locks, the consumer apps' computed bounds,
// the guard database, the vault, and no secrets in plain inputs. Plain policy objects like ./policies.ts; only type
// imports from @pulumi/policy. Resources are matched by type including aliases (isType).
import type { PolicyResource, ReportViolation, ResourceValidationPolicy, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { MAINTENANCE_TAG, REPLICA_BUDGET_TAG_NAME, decodeQueueMetadata, secretShapeIn } from "../specs/index.js";
import {
  DEFAULT_RESERVED_CONNECTIONS,
  deliveryBudgetMs,
  describeHold,
  replicaConnections,
  messageHoldMs,
  replicaBounds,
  ROLLOUT_REVISIONS,
  ReplicaBudgetError,
  type ReplicaBudget,
} from "../../tuning/index.js";
import { alertsCanFire, alertsQuietAtRest, baselineAlerts } from "./alert-policies.js";
import { zoneRedundantReplicas } from "./zone-policies.js";
import { vaultAccessPerSecret } from "./vault-access-policies.js";
import { databaseRetained } from "./restore-policies.js";
import { nightlyAudit } from "./audit-policies.js";
import { logsOnce } from "./log-policies.js";
import { appsEgressPath, egressZoneExplicit } from "./network-policies.js";
import { creationOrder, serverOperationsSerial } from "./ordering-policies.js";
import { consumerProbesPolicy } from "./probe-policies.js";
import { scalerIdentityPlatformOnly, scalerManageRight } from "./scaler-policies.js";
import { telemetryPolicies } from "./telemetry-policies.js";
import { forType, isProductionStack, productionConfigSchema, type ProductionConfig } from "./policy-helpers.js";
import { isType, types } from "./resource-types.js";

type Props = Record<string, unknown>;
const obj = (value: unknown): Props => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Props) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const same = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();
const ofType = (args: StackValidationArgs, type: string) => args.resources.filter((resource) => isType(resource.type, type));
const label = (resource: PolicyResource, nameKey: string) => String(resource.props[nameKey] ?? resource.name);
const production = (args: StackValidationArgs) =>
  isProductionStack(args.resources[0]?.urn, args.getConfig<ProductionConfig>());

export const namespacePrivateAccess: StackValidationPolicy = {
  name: "servicebus-private-access",
  description:
    "A namespace with publicNetworkAccess Disabled is Premium and has a private endpoint (group 'namespace'); production namespaces are reached only that way.",
  enforcementLevel: "mandatory",
  configSchema: productionConfigSchema,
  validateStack: (args, report) => {
    const endpoints = ofType(args, types.privateEndpoint);
    for (const namespace of ofType(args, types.namespace)) {
      const name = label(namespace, "namespaceName");
      const access = namespace.props.publicNetworkAccess ?? "Enabled";
      const linked = endpoints.some((endpoint) =>
        list(endpoint.props.privateLinkServiceConnections).some((connection) => {
          const c = obj(connection);
          return same(c.privateLinkServiceId, namespace.props.id) && list(c.groupIds).includes("namespace");
        }),
      );
      const premium = obj(namespace.props.sku).name === "Premium";
      if (access === "Disabled" && !(premium && linked)) {
        report(
          `namespace ${name}: publicNetworkAccess is Disabled but ${premium ? "no private endpoint reaches it" : "it is not Premium (private endpoints are Premium only)"}: nothing could connect`,
          namespace.urn,
        );
      }
      if (production(args) && access !== "Disabled") {
        report(`namespace ${name}: production namespaces are reached only through a private endpoint: set publicNetworkAccess Disabled (Premium + chargeguard:network)`, namespace.urn);
      }
    }
  },
};

export const diagnosticsDedicated: ResourceValidationPolicy = {
  name: "diagnostics-dedicated-tables",
  description: "Diagnostic settings to Log Analytics use resource-specific (Dedicated) tables, not the legacy AzureDiagnostics table.",
  enforcementLevel: "mandatory",
  validateResource: forType(types.diagnosticSetting, (props, args, report) => {
    if (props.workspaceId !== undefined && props.logAnalyticsDestinationType !== "Dedicated") {
      report(`diagnostic setting ${String(props.name ?? args.name)}: set logAnalyticsDestinationType "Dedicated" (otherwise logs land in the legacy AzureDiagnostics table)`);
    }
  }),
};

const watchedInProduction = [
  [types.namespace, "namespaceName", "namespace"],
  [types.postgresServer, "serverName", "database server"],
  [types.vault, "vaultName", "vault"],
  [types.managedEnvironment, "environmentName", "Container Apps environment"],
] as const;

export const diagnosticsInProduction: StackValidationPolicy = {
  name: "diagnostics-required-in-prod",
  description: "In production stacks the namespace, database server, vault and Container Apps environment each send diagnostics to Log Analytics.",
  enforcementLevel: "mandatory",
  configSchema: productionConfigSchema,
  validateStack: (args, report) => {
    if (!production(args)) return;
    const settings = ofType(args, types.diagnosticSetting).filter((setting) => setting.props.workspaceId !== undefined);
    for (const [type, nameKey, what] of watchedInProduction) {
      for (const resource of ofType(args, type)) {
        if (!settings.some((setting) => same(setting.props.resourceUri, resource.props.id))) {
          report(`${what} ${label(resource, nameKey)}: production resources send their logs and metrics to Log Analytics: add a diagnostic setting`, resource.urn);
        }
      }
    }
  },
};

const tagged = (resource: PolicyResource) => obj(resource.props.tags)[MAINTENANCE_TAG] !== undefined;
/** A lock on the resource or any scope above it (resource group, subscription) covers it. */
const lockedBy = (locks: PolicyResource[], resource: PolicyResource) =>
  locks.filter((lock) => typeof lock.props.scope === "string" && String(resource.props.id ?? "").toLowerCase().startsWith(lock.props.scope.toLowerCase()));

export const deleteLockInProduction: StackValidationPolicy = {
  name: "delete-lock-in-prod",
  description:
    "In production stacks the data carries a CanNotDelete lock (the guard database server, the Key Vault) unless a maintenance window lifted it (tag chargeguard-maintenance), and the namespace carries none: its queues, rules, grants and diagnostics change on day two and a lock would refuse each delete (ScopeLocked).",
  enforcementLevel: "mandatory",
  configSchema: productionConfigSchema,
  validateStack: (args, report) => {
    if (!production(args)) return;
    const locks = ofType(args, types.lock).filter((lock) => lock.props.level === "CanNotDelete");
    const guarded = [
      { type: types.postgresServer, nameKey: "serverName", what: "server", loses: "the billing records that keep charges exactly once" },
      { type: types.vault, nameKey: "vaultName", what: "vault", loses: "the consumers' Stripe keys (purge protection keeps them recoverable, not usable)" },
    ];
    for (const { type, nameKey, what, loses } of guarded) {
      for (const resource of ofType(args, type).filter((candidate) => !tagged(candidate))) {
        if (lockedBy(locks, resource).length === 0) report(`${what} ${label(resource, nameKey)}: production ${what}s carry a CanNotDelete lock: deleting one loses ${loses}`, resource.urn);
      }
    }
    for (const namespace of ofType(args, types.namespace)) {
      if (locks.some((lock) => same(lock.props.scope, namespace.props.id))) {
        report(`namespace ${label(namespace, "namespaceName")}: no delete lock on the namespace: removing a queue or rotating a grant under it would fail ScopeLocked; Pulumi's protect guards it`, namespace.urn);
      }
    }
  },
};

export const maintenanceWindowOpen: StackValidationPolicy = {
  name: "maintenance-window-open",
  description: "Says which production data resources have their delete lock lifted for a maintenance window (chargeguard:maintenance): close it once the change is through.",
  enforcementLevel: "advisory",
  validateStack: (args, report) => {
    for (const resource of [...ofType(args, types.postgresServer), ...ofType(args, types.vault)].filter(tagged)) {
      report(`${String(resource.props.serverName ?? resource.props.vaultName ?? resource.name)}: delete lock lifted for a maintenance window: after the change, pulumi config set chargeguard:maintenance false and pulumi up`, resource.urn);
    }
  },
};

interface ScaleRule {
  name?: unknown;
  custom?: { type?: unknown; identity?: unknown; auth?: unknown; metadata?: Props };
}

const rulesOf = (app: Props): ScaleRule[] => list(obj(obj(app.template).scale).rules) as ScaleRule[];
const envOf = (app: Props) => list(obj(list(obj(app.template).containers)[0]).env).map(obj);
const envValue = (app: Props, name: string) => envOf(app).find((entry) => entry.name === name)?.value;

export const scaleRuleByIdentity: ResourceValidationPolicy = {
  name: "consumer-scale-rule-identity",
  description: "Every azure-servicebus scale rule authenticates with the app's managed identity (no SAS connection string) and names the namespace.",
  enforcementLevel: "mandatory",
  validateResource: forType(types.containerApp, (props, args, report) => {
    for (const rule of rulesOf(props)) {
      const custom = rule.custom;
      if (!custom || custom.type !== "azure-servicebus") continue;
      const name = String(rule.name ?? "?");
      if (list(custom.auth).length > 0) {
        report(`app ${String(props.containerAppName ?? args.name)}: scale rule ${name} authenticates with a secret (template.scale.rules[].custom.auth): use identity, local auth stays off`);
      }
      if (typeof custom.identity !== "string" || custom.identity === "") {
        report(`app ${String(props.containerAppName ?? args.name)}: scale rule ${name} has no identity (template.scale.rules[].custom.identity): KEDA would need a Manage-rights connection string`);
      }
      if (typeof obj(custom.metadata).namespace !== "string") {
        report(`app ${String(props.containerAppName ?? args.name)}: scale rule ${name} needs metadata.namespace for identity authentication`);
      }
    }
  }),
};

function queueOfApp(args: StackValidationArgs, app: PolicyResource): PolicyResource | undefined {
  const queueName = envValue(app.props, "SERVICEBUS_QUEUE");
  return ofType(args, types.queue).find((queue) => same(queue.props.queueName, queueName));
}

export const consumerBounds: StackValidationPolicy = {
  name: "consumer-app-bounds",
  description:
    "A consumer app's grace period covers the longest hold of a message (its queue's delivery budget per Stripe call of its flow, plus a wait for a Stripe slot when it pipelines), it keeps at least one replica, its max replicas fit the Stripe rate and connection budgets it records with two revisions side by side, its STRIPE_REQUESTS_PER_SECOND is that Stripe budget, and all apps together (both revisions of a rollout) fit the database's max_connections.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const maxConnections = ofType(args, types.postgresConfiguration).find((c) => c.props.configurationName === "max_connections");
    let total = 0;
    for (const app of ofType(args, types.containerApp)) {
      const name = label(app, "containerAppName");
      const template = obj(app.props.template);
      const scale = obj(template.scale);
      const queue = queueOfApp(args, app);
      const metadata = queue ? decodeQueueMetadata(queue.props.userMetadata) : undefined;
      const calls = Number(envValue(app.props, "MAX_CONCURRENT_CALLS") ?? 1);
      if (metadata) {
        const delivery = deliveryBudgetMs(metadata.budget);
        // The Stripe calls one message makes (the queue's flow, recorded with its budget): each holds it a delivery budget.
        const perMessage = metadata.budget.concurrency?.stripeCallsPerMessage;
        const shape = {
          maxConcurrentCalls: calls,
          maxConcurrentStripeCalls: Number(envValue(app.props, "MAX_CONCURRENT_STRIPE_CALLS") ?? calls),
          ...(perMessage === undefined ? {} : { stripeCallsPerMessage: perMessage }),
        };
        const grace = typeof template.terminationGracePeriodSeconds === "number" ? template.terminationGracePeriodSeconds : 30;
        if (grace * 1000 < messageHoldMs(delivery, shape)) {
          report(
            `app ${name}: template.terminationGracePeriodSeconds ${grace} is shorter than a message's hold on queue ${String(queue?.props.queueName)} (${describeHold(delivery, shape)}): a scale-in would SIGKILL charges in flight`,
            app.urn,
          );
        }
      }
      if (typeof scale.minReplicas !== "number" || scale.minReplicas < 1) {
        report(`app ${name}: template.scale.minReplicas must be at least 1 (a scale-in to zero cuts in-flight charges)`, app.urn);
      }
      const maxReplicas = typeof scale.maxReplicas === "number" ? scale.maxReplicas : 10;
      let recorded: Props = {};
      try {
        recorded = obj(JSON.parse(String(obj(app.props.tags)[REPLICA_BUDGET_TAG_NAME] ?? "{}")));
      } catch {
        // A hand-edited, unreadable tag counts as none: reported below.
      }
      // Both revisions of a rollout may run at their maximum at once.
      total += ROLLOUT_REVISIONS * maxReplicas * replicaConnections(calls);
      if (Object.keys(recorded).length === 0) {
        report(`app ${name}: no ${REPLICA_BUDGET_TAG_NAME} tag: its max replicas cannot be checked against the Stripe and connection budgets`, app.urn);
        continue;
      }
      if (recorded.maxConcurrentCalls !== calls || String(recorded.maxConcurrentStripeCalls) !== String(envValue(app.props, "MAX_CONCURRENT_STRIPE_CALLS"))) {
        report(`app ${name}: MAX_CONCURRENT_CALLS / MAX_CONCURRENT_STRIPE_CALLS differ from the budget its replicas were computed from`, app.urn);
      }
      if (String(recorded.stripeRatePerSecond) !== String(envValue(app.props, "STRIPE_REQUESTS_PER_SECOND"))) {
        report(`app ${name}: STRIPE_REQUESTS_PER_SECOND differs from the Stripe budget its replicas were computed from (${String(recorded.stripeRatePerSecond)}/s)`, app.urn);
      }
      try {
        replicaBounds({
          ...(recorded as unknown as ReplicaBudget),
          ...(typeof scale.minReplicas === "number" && scale.minReplicas >= 1 ? { minReplicas: scale.minReplicas } : {}),
          maxReplicas,
          deliveryBudgetMs: 0,
        });
      } catch (error) {
        if (!(error instanceof ReplicaBudgetError)) throw error;
        for (const problem of error.problems) report(`app ${name}: template.scale.${problem}`, app.urn);
      }
    }
    if (maxConnections && total > 0) {
      const limit = Number(maxConnections.props.value) - DEFAULT_RESERVED_CONNECTIONS;
      if (total > limit) {
        report(`consumer apps at max replicas, old and new revision side by side, open ${total} connections (guard pools, Stripe budget, breaker probes), over max_connections ${String(maxConnections.props.value)} minus ${DEFAULT_RESERVED_CONNECTIONS} reserved`, maxConnections.urn);
      }
    }
  },
};

export const guardDatabase: StackValidationPolicy = {
  name: "guard-database",
  description:
    "The guard database runs PostgreSQL 16+ with Entra authentication; in production Entra only (no passwords), zone-redundant HA, 7+ days of backups and private access only.",
  enforcementLevel: "mandatory",
  configSchema: productionConfigSchema,
  validateStack: (args, report) => {
    for (const server of ofType(args, types.postgresServer)) {
      const name = label(server, "serverName");
      const props = server.props;
      const auth = obj(props.authConfig);
      if (!(Number(props.version) >= 16)) report(`database server ${name}: version ${String(props.version)}: the guard needs PostgreSQL 16 or later`, server.urn);
      if (auth.activeDirectoryAuth !== "Enabled") report(`database server ${name}: authConfig.activeDirectoryAuth must be Enabled (consumers sign in with their identity)`, server.urn);
      if (!production(args)) continue;
      if (auth.passwordAuth !== "Disabled") report(`database server ${name}: production is Entra only: set authConfig.passwordAuth Disabled`, server.urn);
      if (obj(props.highAvailability).mode !== "ZoneRedundant") report(`database server ${name}: production runs highAvailability.mode ZoneRedundant`, server.urn);
      if (!(Number(obj(props.backup).backupRetentionDays) >= 7)) report(`database server ${name}: keep at least 7 days of backups (backup.backupRetentionDays)`, server.urn);
      const network = obj(props.network);
      if (network.publicNetworkAccess !== "Disabled" || typeof network.delegatedSubnetResourceId !== "string") {
        report(`database server ${name}: production databases have private access only (network.delegatedSubnetResourceId, publicNetworkAccess Disabled)`, server.urn);
      }
    }
  },
};

export const vaultProtection: StackValidationPolicy = {
  name: "keyvault-protection",
  description: "Key Vaults use RBAC authorization; in production purge protection, soft delete and no public access.",
  enforcementLevel: "mandatory",
  configSchema: productionConfigSchema,
  validateStack: (args, report) => {
    for (const vault of ofType(args, types.vault)) {
      const name = label(vault, "vaultName");
      const properties = obj(vault.props.properties);
      if (properties.enableRbacAuthorization !== true) report(`vault ${name}: set properties.enableRbacAuthorization (roles per identity, no access policies)`, vault.urn);
      if (!production(args)) continue;
      if (properties.enablePurgeProtection !== true) report(`vault ${name}: production vaults enable purge protection (properties.enablePurgeProtection)`, vault.urn);
      if (properties.enableSoftDelete === false) report(`vault ${name}: production vaults keep soft delete on`, vault.urn);
      if (properties.publicNetworkAccess !== "Disabled") report(`vault ${name}: production vaults are reached only through a private endpoint (properties.publicNetworkAccess Disabled)`, vault.urn);
    }
  },
};

function plainSecrets(value: unknown, path: string): string[] {
  if (typeof value === "string") {
    const found = secretShapeIn(value);
    return found ? [`${path} holds ${found} in plain text`] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => plainSecrets(item, `${path}[${index}]`));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => plainSecrets(item, path ? `${path}.${key}` : key));
  }
  return [];
}

export const noPlainSecrets: ResourceValidationPolicy = {
  name: "no-plain-secrets",
  description: "No credential in a plain input (SAS keys, Stripe keys, passwords); Container Apps secrets are Key Vault references, not values.",
  enforcementLevel: "mandatory",
  validateResource: (args, report: ReportViolation) => {
    for (const problem of plainSecrets(args.props, "")) report(`${args.name}: ${problem}: keep it in Key Vault (or mark it secret)`);
    if (isType(args.type, types.containerApp)) {
      for (const secret of list(obj(args.props.configuration).secrets).map(obj)) {
        if (secret.keyVaultUrl === undefined) {
          report(`${args.name}: configuration.secrets ${String(secret.name)} carries its value: reference the Key Vault secret (keyVaultUrl + identity) instead`);
        }
      }
    }
  },
};

export const servicePolicies: (ResourceValidationPolicy | StackValidationPolicy)[] = [
  namespacePrivateAccess,
  diagnosticsDedicated,
  diagnosticsInProduction,
  deleteLockInProduction,
  maintenanceWindowOpen,
  scaleRuleByIdentity,
  scalerManageRight,
  scalerIdentityPlatformOnly,
  creationOrder,
  serverOperationsSerial,
  consumerProbesPolicy,
  baselineAlerts,
  alertsQuietAtRest,
  zoneRedundantReplicas,
  alertsCanFire,
  nightlyAudit,
  appsEgressPath,
  egressZoneExplicit,
  logsOnce,
  consumerBounds,
  guardDatabase,
  vaultProtection,
  noPlainSecrets,
  vaultAccessPerSecret,
  databaseRetained,
  ...telemetryPolicies,
];
