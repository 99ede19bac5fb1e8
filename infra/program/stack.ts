// The per-environment stack: one billing namespace and its queues, built from the stack's config.
// The Pulumi entry point (./index.ts) and the offline plan (../plan) both run defineStack, so the plan shows
// exactly what `pulumi up` would build from the same Pulumi.<stack>.yaml.
import * as pulumi from "@pulumi/pulumi";
import { BillingNamespace } from "../components/billing-namespace.js";
import { BillingQueue } from "../components/billing-queue.js";
import { fromPulumiConfig } from "../load-stack-config.js";
import { parseStackConfig, type StackConfig } from "../stack-config.js";
import type { ConsumerSettings } from "../../tuning/index.js";

export interface BuiltStack {
  namespace: BillingNamespace;
  queues: BillingQueue[];
}

export function buildStack(config: StackConfig): BuiltStack {
  const ns = config.namespace;
  const namespace = new BillingNamespace(ns.name, {
    resourceGroupName: config.resourceGroupName,
    location: config.location,
    namespaceName: ns.name,
    sku: ns.sku,
    ...(ns.capacity !== undefined ? { capacity: ns.capacity } : {}),
    disableLocalAuth: ns.disableLocalAuth,
    publicNetworkAccess: ns.publicNetworkAccess,
    minimumTlsVersion: ns.minimumTlsVersion,
    ...(ns.zoneRedundant !== undefined ? { zoneRedundant: ns.zoneRedundant } : {}),
    ...(ns.logAnalyticsWorkspaceId !== undefined ? { logAnalyticsWorkspaceId: ns.logAnalyticsWorkspaceId } : {}),
    alerts: { emails: config.alerts.emails, webhooks: config.alerts.webhooks, shortName: config.alerts.actionGroupShortName },
    tags: { "managed-by": "chargeguard", stack: pulumi.getStack() },
  });
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
        alerts: { severities: config.alerts.severities, backlogThreshold: config.alerts.backlogThreshold },
      }),
  );
  return { namespace, queues };
}

export interface QueueStackOutput {
  queueId: pulumi.Output<string>;
  lockDuration: string;
  maxDeliveryCount: number;
  worstCaseStripeMs: number;
  consumer: ConsumerSettings;
  childIds: pulumi.Output<string[]>;
}

/** Reads and validates the stack config, builds the stack and returns its outputs (`pulumi stack output`). */
export function defineStack() {
  const values = fromPulumiConfig(pulumi.runtime.allConfig());
  const config = parseStackConfig(values, `stack ${pulumi.getStack()} config`);
  const { namespace, queues } = buildStack(config);
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
  return {
    namespaceName: namespace.namespaceName,
    namespaceId: namespace.namespaceId,
    actionGroupId: namespace.actionGroupId,
    diagnosticsId: namespace.diagnostics?.id,
    queues: queueOutputs,
  };
}
