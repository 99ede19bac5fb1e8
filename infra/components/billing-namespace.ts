// A Service Bus namespace for billing queues, with secure defaults: TLS 1.2 or later, local (SAS) auth off unless
// asked, an optional shared action group for the queues' alerts and optional diagnostics to Log Analytics.
import * as pulumi from "@pulumi/pulumi";
import { ActionGroup, DiagnosticSetting } from "@pulumi/azure-native/monitor/index.js";
import { Namespace } from "@pulumi/azure-native/servicebus/index.js";
import type { Sku } from "../stack-config.js";

export interface BillingAlertReceivers {
  emails?: pulumi.Input<string>[];
  webhooks?: { name: string; url: pulumi.Input<string> }[];
  /** The action group's short name in SMS and e-mail (Azure allows 12 characters), default "billing". */
  shortName?: string;
}

export interface BillingNamespaceArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  /** The Azure name of the namespace (globally unique, 6-50 characters). */
  namespaceName: pulumi.Input<string>;
  /** Plain, not an Input: the tier decides which features the queues get (no duplicate detection on Basic). */
  sku: Sku;
  /** Premium messaging units (1, 2, 4, 8, 16), default 1. */
  capacity?: pulumi.Input<number>;
  /** Default true: Entra ID only, no SAS keys. Plain: with local auth on, queues get Listen-only/Send-only rules. */
  disableLocalAuth?: boolean;
  /** Default "Enabled" (Azure's own default); "Disabled" needs private endpoints. */
  publicNetworkAccess?: pulumi.Input<"Enabled" | "Disabled" | "SecuredByPerimeter">;
  /** Default "1.2". */
  minimumTlsVersion?: pulumi.Input<"1.2" | "1.3">;
  /** Premium only, default true there. */
  zoneRedundant?: pulumi.Input<boolean>;
  /** Receivers of every queue alert; no receivers, no action group. */
  alerts?: BillingAlertReceivers;
  /** Send the namespace's logs and metrics to this Log Analytics workspace. */
  logAnalyticsWorkspaceId?: pulumi.Input<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class BillingNamespace extends pulumi.ComponentResource {
  readonly namespace: Namespace;
  readonly namespaceName: pulumi.Output<string>;
  readonly namespaceId: pulumi.Output<string>;
  readonly resourceGroupName: pulumi.Output<string>;
  readonly sku: Sku;
  readonly localAuthEnabled: boolean;
  readonly actionGroup?: ActionGroup;
  readonly actionGroupId?: pulumi.Output<string>;
  readonly diagnostics?: DiagnosticSetting;

  constructor(name: string, args: BillingNamespaceArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:BillingNamespace", name, {}, opts);
    const premium = args.sku === "Premium";
    this.sku = args.sku;
    this.localAuthEnabled = args.disableLocalAuth === false;
    this.resourceGroupName = pulumi.output(args.resourceGroupName);

    this.namespace = new Namespace(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        namespaceName: args.namespaceName,
        sku: { name: args.sku, tier: args.sku, ...(premium ? { capacity: args.capacity ?? 1 } : {}) },
        minimumTlsVersion: args.minimumTlsVersion ?? "1.2",
        disableLocalAuth: !this.localAuthEnabled,
        publicNetworkAccess: args.publicNetworkAccess ?? "Enabled",
        ...(premium ? { zoneRedundant: args.zoneRedundant ?? true } : {}),
        tags: args.tags,
      },
      { parent: this },
    );
    this.namespaceName = this.namespace.name;
    this.namespaceId = this.namespace.id;

    const emails = args.alerts?.emails ?? [];
    const webhooks = args.alerts?.webhooks ?? [];
    if (emails.length > 0 || webhooks.length > 0) {
      this.actionGroup = new ActionGroup(
        `${name}-billing-alerts`,
        {
          resourceGroupName: args.resourceGroupName,
          actionGroupName: pulumi.interpolate`${this.namespaceName}-billing-alerts`,
          groupShortName: args.alerts?.shortName ?? "billing",
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
        { parent: this },
      );
      this.actionGroupId = this.actionGroup.id;
    }

    if (args.logAnalyticsWorkspaceId !== undefined) {
      this.diagnostics = new DiagnosticSetting(
        `${name}-diagnostics`,
        {
          name: pulumi.interpolate`${this.namespaceName}-diagnostics`,
          resourceUri: this.namespaceId,
          workspaceId: args.logAnalyticsWorkspaceId,
          logs: [{ categoryGroup: "allLogs", enabled: true }],
          metrics: [{ category: "AllMetrics", enabled: true }],
        },
        { parent: this },
      );
    }

    this.registerOutputs({
      namespaceName: this.namespaceName,
      namespaceId: this.namespaceId,
      sku: this.sku,
      localAuthEnabled: this.localAuthEnabled,
      actionGroupId: this.actionGroupId,
      diagnosticsId: this.diagnostics?.id,
    });
  }
}
