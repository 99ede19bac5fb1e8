// A billing namespace's alerting: the action group every queue alert notifies (only when there are receivers). The
// dead-letter alerts are the queues' own metric alerts (alert-specs.ts): no log query can see DeadletteredMessages.
import * as pulumi from "@pulumi/pulumi";
import { ActionGroup } from "@pulumi/azure-native/monitor/index.js";
import type { BillingAlertReceivers } from "./alert-receivers.js";

export interface NamespaceAlertsArgs {
  /** The component's resource name; its action group is `<name>-billing-alerts`. */
  name: string;
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string> | undefined;
  namespaceName: pulumi.Output<string>;
  namespaceId: pulumi.Output<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>> | undefined;
}

/** The shared action group; no receivers, no action group. */
export function billingActionGroup(parent: pulumi.Resource, args: NamespaceAlertsArgs, receivers: BillingAlertReceivers | undefined): ActionGroup | undefined {
  const emails = receivers?.emails ?? [];
  const webhooks = receivers?.webhooks ?? [];
  if (emails.length === 0 && webhooks.length === 0) return undefined;
  return new ActionGroup(
    `${args.name}-billing-alerts`,
    {
      resourceGroupName: args.resourceGroupName,
      actionGroupName: pulumi.interpolate`${args.namespaceName}-billing-alerts`,
      groupShortName: receivers?.shortName ?? "billing",
      location: "global",
      enabled: true,
      emailReceivers: emails.map((emailAddress, index) => ({
        name: `email-${index + 1}`,
        emailAddress,
        useCommonAlertSchema: true,
      })),
      webhookReceivers: webhooks.map((hook) => ({ name: hook.name, serviceUri: hook.url, useCommonAlertSchema: true })),
      tags: args.tags,
    },
    { parent },
  );
}
