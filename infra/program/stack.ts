// The per-environment stack: the billing namespace and its queues and, when the stack has the service sections,
// the whole service around them: observability, private network (production), Key Vault, the consumers'
// identities, the guard database, the Container Apps environment and one consumer app per configured queue.
// The Pulumi entry point (./index.ts) and the offline plan (../plan) both run defineStack, so the plan shows
// exactly what `pulumi up` would build from the same Pulumi.<stack>.yaml.
import * as pulumi from "@pulumi/pulumi";
import { getClientConfigOutput } from "@pulumi/azure-native/authorization/index.js";
import type { BillingHealth } from "../components/billing-health.js";
import type { BillingNamespace } from "../components/billing-namespace.js";
import type { BillingQueue } from "../components/billing-queue.js";
import type { BillingSecrets } from "../components/billing-secrets.js";
import type { ConsumerApp } from "../components/consumer-app.js";
import type { GuardDatabase } from "../components/guard-database.js";
import { Observability } from "../components/observability.js";
import { PrivateNetwork } from "../components/private-network.js";
import { fromPulumiConfig, parseStackConfig, type StackConfig } from "../config/index.js";
import { buildAuditIdentity } from "./audit.js";
import { buildConsumerApps } from "./consumer-apps.js";
import { buildConsumerIdentities } from "./consumer-identities.js";
import { buildGuardDatabase } from "./guard-database.js";
import { buildBillingHealth, buildNamespace, buildQueues } from "./messaging.js";
import { buildServiceAlerts } from "./service-alerts.js";
import type { StackContext } from "./stack-context.js";
import { buildVault } from "./vault.js";
import type { ConsumerSettings, ReplicaBounds } from "../../tuning/index.js";

export interface BuiltStack {
  namespace: BillingNamespace;
  queues: BillingQueue[];
  observability: Observability;
  health: BillingHealth;
  apps: ConsumerApp[];
  database?: GuardDatabase;
  secrets?: BillingSecrets;
}

export function buildStack(config: StackConfig): BuiltStack {
  const rg = config.resourceGroupName;
  const location = config.location;
  const context: StackContext = { config, resourceGroupName: rg, location, tags: { "managed-by": "chargeguard", stack: pulumi.getStack() } };
  const { tags } = context;

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
        ...(config.database ? { databaseServerName: config.database.serverName, postgresDnsZoneName: config.database.privateDnsZoneName } : {}),
        tags,
      })
    : undefined;

  const namespace = buildNamespace(context, network, workspaceId);
  const queues = buildQueues(context, namespace);
  const health = buildBillingHealth(context, namespace, observability.appInsightsId);

  const tenantId = config.vault || config.database ? getClientConfigOutput().tenantId : undefined;
  const { secrets, privateLink: vaultPrivateLink } = buildVault(context, tenantId, network, workspaceId);
  const identities = buildConsumerIdentities(context, queues, secrets, observability.appInsightsId);
  const database = buildGuardDatabase(context, tenantId, identities, network, workspaceId);
  const auditIdentity = buildAuditIdentity(context, secrets);

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
    ...(auditIdentity ? { auditIdentity } : {}),
    ...(namespace.actionGroupId ? { actionGroupId: namespace.actionGroupId } : {}),
  });
  buildServiceAlerts(context, namespace, apps, database);
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
