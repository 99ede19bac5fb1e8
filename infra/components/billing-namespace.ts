// A Service Bus namespace for billing queues, with secure defaults: TLS 1.2 or later, local (SAS) auth off unless
// asked, an optional shared action group for the queues' alerts, optional diagnostics to Log Analytics (Dedicated
// tables), and in production Pulumi's `protect` (no delete lock: its children change on day two, infra/specs/locks.ts).
import * as pulumi from "@pulumi/pulumi";
import type { ActionGroup, DiagnosticSetting } from "@pulumi/azure-native/monitor/index.js";
import { Namespace } from "@pulumi/azure-native/servicebus/index.js";
import type { Sku } from "../config/index.js";
import { dedicatedDiagnostics } from "./diagnostics.js";
import type { BillingAlertReceivers } from "./alert-receivers.js";
import { billingActionGroup } from "./namespace-alerts.js";

export type { BillingAlertReceivers };

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
  /**
   * Default "Enabled" (Azure's own default). "Disabled" is refused unless the namespace is Premium and
   * `privateEndpoint` is true (the Network component adds it): otherwise nothing could reach the namespace.
   */
  publicNetworkAccess?: "Enabled" | "Disabled" | "SecuredByPerimeter";
  /** A private endpoint will reach this namespace (Premium only). */
  privateEndpoint?: boolean;
  /** Default "1.2". */
  minimumTlsVersion?: pulumi.Input<"1.2" | "1.3">;
  /** Premium only, default true there. */
  zoneRedundant?: pulumi.Input<boolean>;
  /** Receivers of every queue alert; no receivers, no action group. */
  alerts?: BillingAlertReceivers;
  /** Send the namespace's logs and metrics to this Log Analytics workspace. */
  logAnalyticsWorkspaceId?: pulumi.Input<string>;
  /** Production: Pulumi's `protect` on the namespace and its queues (no lock: infra/specs/locks.ts). */
  protect?: boolean;
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
  /** Whether children (queues) should be created with `protect`. */
  readonly protect: boolean;

  constructor(name: string, args: BillingNamespaceArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:BillingNamespace", name, {}, opts);
    const premium = args.sku === "Premium";
    if (args.publicNetworkAccess === "Disabled" && !(premium && args.privateEndpoint === true)) {
      throw new Error(
        `namespace ${name}: publicNetworkAccess "Disabled" needs a Premium namespace with a private endpoint (sku is ${args.sku}, privateEndpoint ${String(args.privateEndpoint ?? false)}): nothing could reach it`,
      );
    }
    this.protect = args.protect === true;
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
      { parent: this, protect: this.protect },
    );
    this.namespaceName = this.namespace.name;
    this.namespaceId = this.namespace.id;

    const alertArgs = {
      name,
      resourceGroupName: args.resourceGroupName,
      location: args.location,
      namespaceName: this.namespaceName,
      namespaceId: this.namespaceId,
      tags: args.tags,
    };
    const actionGroup = billingActionGroup(this, alertArgs, args.alerts);
    if (actionGroup) {
      this.actionGroup = actionGroup;
      this.actionGroupId = actionGroup.id;
    }

    if (args.logAnalyticsWorkspaceId !== undefined) {
      this.diagnostics = dedicatedDiagnostics(
        `${name}-diagnostics`,
        { settingName: pulumi.interpolate`${this.namespaceName}-diagnostics`, resourceUri: this.namespaceId, workspaceId: args.logAnalyticsWorkspaceId },
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
