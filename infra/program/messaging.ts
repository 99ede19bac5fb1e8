// The stack's messaging section: the billing namespace (with its private endpoint in a private network), one
// billing queue per configured queue, and the consumers' billing-health alerts that watch them.
import * as pulumi from "@pulumi/pulumi";
import { BillingHealth } from "../components/billing-health.js";
import { BillingNamespace } from "../components/billing-namespace.js";
import { BillingQueue } from "../components/billing-queue.js";
import { PrivateLink } from "../components/private-link.js";
import type { PrivateNetwork } from "../components/private-network.js";
import { isSecureValue } from "../config/index.js";
import { deliveryBudgetMs } from "../../tuning/index.js";
import type { StackContext } from "./stack-context.js";

/** A webhook URL from config, always secret: it usually carries the receiver's key. */
function secretUrl(url: unknown): pulumi.Output<string> {
  if (typeof url === "string") return pulumi.secret(url);
  if (isSecureValue(url)) throw new Error("a secure config value reached the program undecrypted: run it through `pulumi up`, which decrypts config");
  throw new Error(`expected a webhook URL, got ${typeof url}`);
}

/** The namespace, its diagnostics and action group and, in a private network, its private endpoint. */
export function buildNamespace(
  { config, resourceGroupName: rg, location, tags }: StackContext,
  network: PrivateNetwork | undefined,
  workspaceId: pulumi.Input<string>,
): BillingNamespace {
  const ns = config.namespace;
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
  return namespace;
}

/** One billing queue per configured queue, each tuned from its latency budget, with its grants and alerts. */
export function buildQueues({ config }: StackContext, namespace: BillingNamespace): BillingQueue[] {
  return config.queues.map(
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
}

/**
 * The consumers' own billing metrics (Application Insights): alerts and a workbook per environment. A billing
 * pending longer than any lease (twice the slowest queue's delivery budget, the consumer's default when its messages
 * wait for a Stripe slot) is past what a consumer finishes itself: the reconciler's turn.
 */
export function buildBillingHealth(
  { config, resourceGroupName: rg, location, tags }: StackContext,
  namespace: BillingNamespace,
  applicationInsightsId: pulumi.Input<string>,
): BillingHealth {
  const longestLeaseMs = Math.max(...config.queues.map((queue) => 2 * deliveryBudgetMs(queue.budget)));
  return new BillingHealth("billing-health", {
    resourceGroupName: rg,
    location,
    environment: pulumi.getStack(),
    applicationInsightsId,
    namespaceId: namespace.namespaceId,
    ...(namespace.actionGroupId ? { actionGroupId: namespace.actionGroupId } : {}),
    thresholds: { oldestPendingSeconds: Math.ceil(longestLeaseMs / 1000) },
    tags,
  });
}
