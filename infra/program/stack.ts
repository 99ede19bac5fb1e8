// The per-environment stack: the billing namespace and its queues and, when the stack has the service sections,
// the whole service around them: observability, private network (production), Key Vault, the consumers'
// identities, the guard database, the Container Apps environment and one consumer app per configured queue.
// The Pulumi entry point (./index.ts) and the offline plan (../plan) both run defineStack, so the plan shows
// exactly what `pulumi up` would build from the same Pulumi.<stack>.yaml.
import * as pulumi from "@pulumi/pulumi";
import { getClientConfigOutput } from "@pulumi/azure-native/authorization/index.js";
import { BillingHealth } from "../components/billing-health.js";
import { BillingNamespace } from "../components/billing-namespace.js";
import { BillingQueue } from "../components/billing-queue.js";
import { BillingSecrets } from "../components/billing-secrets.js";
import type { ConsumerApp } from "../components/consumer-app.js";
import { ConsumerIdentity } from "../components/consumer-identity.js";
import { GuardDatabase } from "../components/guard-database.js";
import { Observability } from "../components/observability.js";
import { PrivateLink } from "../components/private-link.js";
import { PrivateNetwork } from "../components/private-network.js";
import { ServiceAlerts } from "../components/service-alerts.js";
import { isSecureValue } from "../config-issues.js";
import { fromPulumiConfig } from "../load-stack-config.js";
import { buildConsumerApps } from "./consumer-apps.js";
import { containerAppAlertSpecs, postgresAlertSpecs, premiumNamespaceAlertSpecs } from "../service-alert-specs.js";
import { parseStackConfig, type StackConfig } from "../stack-config.js";
import { deliveryBudgetMs, type ConsumerSettings, type ReplicaBounds } from "../../tuning/index.js";

export interface BuiltStack {
  namespace: BillingNamespace;
  queues: BillingQueue[];
  observability: Observability;
  health: BillingHealth;
  apps: ConsumerApp[];
  database?: GuardDatabase;
  secrets?: BillingSecrets;
}

/** A webhook URL from config, always secret: it usually carries the receiver's key. */
function secretUrl(url: unknown): pulumi.Output<string> {
  if (typeof url === "string") return pulumi.secret(url);
  if (isSecureValue(url)) throw new Error("a secure config value reached the program undecrypted: run it through `pulumi up`, which decrypts config");
  throw new Error(`expected a webhook URL, got ${typeof url}`);
}

export function buildStack(config: StackConfig): BuiltStack {
  const ns = config.namespace;
  const rg = config.resourceGroupName;
  const location = config.location;
  const tags = { "managed-by": "chargeguard", stack: pulumi.getStack() };

  const observability = new Observability("observability", {
    resourceGroupName: rg,
    location,
    workspaceName: config.observability.workspaceName ?? `log-${rg}`,
    appInsightsName: config.observability.appInsightsName ?? `appi-${rg}`,
    ...(config.observability.retentionInDays !== undefined ? { retentionInDays: config.observability.retentionInDays } : {}),
    tags,
  });
  const workspaceId = observability.workspaceId;

  const network = config.network
    ? new PrivateNetwork("network", {
        resourceGroupName: rg,
        location,
        vnetName: config.network.vnetName,
        addressSpace: config.network.addressSpace,
        ...(config.database ? { databaseServerName: config.database.serverName } : {}),
        tags,
      })
    : undefined;

  const namespace = new BillingNamespace(ns.name, {
    resourceGroupName: rg,
    location,
    namespaceName: ns.name,
    sku: ns.sku,
    ...(ns.capacity !== undefined ? { capacity: ns.capacity } : {}),
    disableLocalAuth: ns.disableLocalAuth,
    publicNetworkAccess: ns.publicNetworkAccess,
    privateEndpoint: network !== undefined,
    minimumTlsVersion: ns.minimumTlsVersion,
    ...(ns.zoneRedundant !== undefined ? { zoneRedundant: ns.zoneRedundant } : {}),
    logAnalyticsWorkspaceId: ns.logAnalyticsWorkspaceId ?? workspaceId,
    newDeadLetterSeverity: config.alerts.severities.deadLettered,
    protect: config.production,
    alerts: {
      emails: config.alerts.emails,
      webhooks: config.alerts.webhooks.map((hook) => ({ name: hook.name, url: secretUrl(hook.url) })),
      shortName: config.alerts.actionGroupShortName,
    },
    tags,
  });
  if (network) {
    new PrivateLink(`${ns.name}-private`, {
      resourceGroupName: rg,
      location,
      endpointName: `pe-${ns.name}`,
      targetId: namespace.namespaceId,
      groupId: "namespace",
      subnetId: network.privateEndpointsSubnetId,
      privateDnsZoneId: network.zoneIds.serviceBus as pulumi.Output<string>,
      tags,
    });
  }

  const queues = config.queues.map(
    (queue) =>
      new BillingQueue(queue.name, {
        namespace,
        queueName: queue.name,
        budget: queue.budget,
        ...(queue.consumerPrincipalId !== undefined ? { consumerPrincipalId: queue.consumerPrincipalId } : {}),
        ...(queue.producerPrincipalId !== undefined ? { producerPrincipalId: queue.producerPrincipalId } : {}),
        ...(queue.consumerPrincipalType !== undefined ? { consumerPrincipalType: queue.consumerPrincipalType } : {}),
        ...(queue.producerPrincipalType !== undefined ? { producerPrincipalType: queue.producerPrincipalType } : {}),
        ...(queue.operatorPrincipalIds !== undefined ? { operatorPrincipalIds: queue.operatorPrincipalIds } : {}),
        ...(queue.operatorPrincipalType !== undefined ? { operatorPrincipalType: queue.operatorPrincipalType } : {}),
        alerts: {
          severities: config.alerts.severities,
          backlogThreshold: config.alerts.backlogThreshold,
          retryBacklogThreshold: config.alerts.retryBacklogThreshold,
        },
      }),
  );

  // The consumers' own billing metrics (Application Insights): alerts and a workbook per environment. A billing
  // pending longer than any lease (twice the slowest queue's delivery budget, the consumer's default when its messages
  // wait for a Stripe slot) is past what a consumer finishes itself: the reconciler's turn.
  const longestLeaseMs = Math.max(...config.queues.map((queue) => 2 * deliveryBudgetMs(queue.budget)));
  const health = new BillingHealth("billing-health", {
    resourceGroupName: rg,
    location,
    environment: pulumi.getStack(),
    applicationInsightsId: observability.appInsightsId,
    namespaceId: namespace.namespaceId,
    ...(namespace.actionGroupId ? { actionGroupId: namespace.actionGroupId } : {}),
    thresholds: { oldestPendingSeconds: Math.ceil(longestLeaseMs / 1000) },
    tags,
  });

  const tenantId = config.vault || config.database ? getClientConfigOutput().tenantId : undefined;
  const secrets =
    config.vault && tenantId
      ? new BillingSecrets("secrets", {
          resourceGroupName: rg,
          location,
          vaultName: config.vault.name,
          tenantId,
          production: config.production,
          softDeleteRetentionInDays: config.vault.softDeleteRetentionInDays,
          logAnalyticsWorkspaceId: workspaceId,
          tags,
        })
      : undefined;
  const vaultPrivateLink =
    secrets && network
      ? new PrivateLink("secrets-private", {
      resourceGroupName: rg,
      location,
      endpointName: `pe-${secrets.vaultName}`,
      targetId: secrets.vaultId,
      groupId: "vault",
      subnetId: network.privateEndpointsSubnetId,
      privateDnsZoneId: network.zoneIds.vault as pulumi.Output<string>,
      tags,
    })
      : undefined;

  const consumers = config.app?.consumers ?? [];
  // Identities and their grants come in the bootstrap phase too, so the grants have propagated before an app uses them.
  const identities = consumers.map((consumer) => {
    const queue = queues.find((q) => q.queueName === consumer.queue) as BillingQueue;
    return new ConsumerIdentity(consumer.identityName, {
      resourceGroupName: rg,
      location,
      identityName: consumer.identityName,
      queueId: queue.queue.id,
      ...(config.app?.registry ? { registryId: config.app.registry.resourceId } : {}),
      ...(secrets ? { vaultId: secrets.vaultId } : {}),
      tags,
    });
  });

  const database =
    config.database && tenantId
      ? new GuardDatabase("guard-db", {
          resourceGroupName: rg,
          location,
          serverName: config.database.serverName,
          databaseName: config.database.databaseName,
          version: config.database.version,
          skuName: config.database.skuName,
          tier: config.database.tier,
          storageSizeGB: config.database.storageSizeGB,
          maxConnections: config.database.maxConnections,
          tenantId,
          // With an administrator of its own (production requires one), each consumer gets a role owning only its
          // schema (infra/database-roles.ts, run by that administrator after phase one). Without (development), the
          // consumers' identities are the administrators, so the guard can create its tables unattended.
          administrators:
            config.database.administrators.length > 0
              ? config.database.administrators.map((admin) => ({ key: admin.principalName, admin }))
              : identities.map((identity) => ({
                  key: identity.identityName,
                  admin: { objectId: identity.principalId, principalName: identity.identityName, principalType: "ServicePrincipal" as const },
                })),
          highAvailability: config.database.highAvailability,
          backupRetentionDays: config.database.backupRetentionDays,
          geoRedundantBackup: config.database.geoRedundantBackup,
          ...(network
            ? {
                privateAccess: {
                  delegatedSubnetId: network.databaseSubnetId,
                  privateDnsZoneId: network.zoneIds.postgres as pulumi.Output<string>,
                  ...(network.linkByZone.postgres ? { zoneLink: network.linkByZone.postgres } : {}),
                },
              }
            : {}),
          production: config.production,
          logAnalyticsWorkspaceId: workspaceId,
          tags,
        })
      : undefined;

  const apps = buildConsumerApps({
    config,
    location,
    tags,
    namespaceName: namespace.namespaceName,
    queues,
    identities,
    ...(secrets ? { secrets } : {}),
    ...(vaultPrivateLink ? { vaultPrivateLink: [vaultPrivateLink.endpoint, vaultPrivateLink.zoneGroup] } : {}),
    ...(network ? { network } : {}),
    ...(database ? { database } : {}),
    logAnalytics: { workspaceId },
    appInsightsConnectionString: observability.appInsightsConnectionString,
  });
  if (apps.length > 0 || database || ns.sku === "Premium") {
    new ServiceAlerts("service-alerts", {
      resourceGroupName: rg,
      ...(namespace.actionGroupId ? { actionGroupId: namespace.actionGroupId } : {}),
      targets: [
        ...apps.map((app, index) => {
          const appName = consumers[index]?.appName ?? `consumer-${index}`;
          return { key: appName, resourceId: app.app.id, specs: containerAppAlertSpecs(appName, app.bounds.maxReplicas) };
        }),
        ...(database ? [{ key: database.serverName, resourceId: database.server.id, specs: postgresAlertSpecs(database.serverName) }] : []),
        ...(ns.sku === "Premium" ? [{ key: ns.name, resourceId: namespace.namespaceId, specs: premiumNamespaceAlertSpecs(ns.name) }] : []),
      ],
      tags,
    });
  }
  return { namespace, queues, observability, health, apps, ...(database ? { database } : {}), ...(secrets ? { secrets } : {}) };
}

export interface QueueStackOutput {
  queueId: pulumi.Output<string>;
  lockDuration: string;
  maxDeliveryCount: number;
  worstCaseStripeMs: number;
  consumer: ConsumerSettings;
  childIds: pulumi.Output<string[]>;
}

export interface ConsumerStackOutput {
  queue: string;
  appId: pulumi.Output<string>;
  bounds: ReplicaBounds;
}

/** Reads and validates the stack config, builds the stack and returns its outputs (`pulumi stack output`). */
export function defineStack() {
  const values = fromPulumiConfig(pulumi.runtime.allConfig());
  const config = parseStackConfig(values, `stack ${pulumi.getStack()} config`, pulumi.getStack());
  const { namespace, queues, observability, apps, database } = buildStack(config);
  const queueOutputs: Record<string, QueueStackOutput> = {};
  for (const queue of queues) {
    queueOutputs[queue.queueName] = {
      queueId: queue.queue.id,
      lockDuration: queue.tuning.lockDuration,
      maxDeliveryCount: queue.tuning.maxDeliveryCount,
      worstCaseStripeMs: queue.tuning.worstCaseStripeMs,
      consumer: queue.consumer,
      childIds: queue.childIds,
    };
  }
  const consumerOutputs: Record<string, ConsumerStackOutput> = {};
  for (const [index, app] of apps.entries()) {
    const consumer = config.app?.consumers[index];
    if (consumer) consumerOutputs[consumer.appName] = { queue: consumer.queue, appId: app.app.id, bounds: app.bounds };
  }
  return {
    namespaceName: namespace.namespaceName,
    namespaceId: namespace.namespaceId,
    actionGroupId: namespace.actionGroupId,
    diagnosticsId: namespace.diagnostics?.id,
    workspaceId: observability.workspaceId,
    databaseHost: database?.host,
    queues: queueOutputs,
    consumers: consumerOutputs,
  };
}
