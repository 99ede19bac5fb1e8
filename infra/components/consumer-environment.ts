// The Container Apps environment the consumers run in: logs to the Log Analytics workspace, in production inside
// the VNet's apps subnet (internal: consumers take no inbound traffic) and zone redundant; diagnostics in Dedicated tables.
import * as pulumi from "@pulumi/pulumi";
import { ManagedEnvironment } from "@pulumi/azure-native/app/index.js";
import { dedicatedDiagnostics } from "./diagnostics.js";

export interface ConsumerEnvironmentArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  environmentName: string;
  logAnalytics: { workspaceId: pulumi.Input<string>; customerId: pulumi.Input<string>; sharedKey: pulumi.Input<string> };
  /** Production: the apps subnet (delegated to Microsoft.App/environments). */
  infrastructureSubnetId?: pulumi.Input<string>;
  zoneRedundant?: boolean;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class ConsumerEnvironment extends pulumi.ComponentResource {
  readonly environment: ManagedEnvironment;
  readonly environmentId: pulumi.Output<string>;

  constructor(name: string, args: ConsumerEnvironmentArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:ConsumerEnvironment", name, {}, opts);
    this.environment = new ManagedEnvironment(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        environmentName: args.environmentName,
        appLogsConfiguration: {
          destination: "log-analytics",
          logAnalyticsConfiguration: { customerId: args.logAnalytics.customerId, sharedKey: pulumi.secret(args.logAnalytics.sharedKey) },
        },
        workloadProfiles: [{ name: "Consumption", workloadProfileType: "Consumption" }],
        ...(args.infrastructureSubnetId !== undefined
          ? { vnetConfiguration: { infrastructureSubnetId: args.infrastructureSubnetId, internal: true }, zoneRedundant: args.zoneRedundant ?? true }
          : {}),
        tags: args.tags,
      },
      { parent: this },
    );
    this.environmentId = this.environment.id;
    dedicatedDiagnostics(
      `${name}-diagnostics`,
      { settingName: `${args.environmentName}-diagnostics`, resourceUri: this.environmentId, workspaceId: args.logAnalytics.workspaceId },
      { parent: this },
    );
    this.registerOutputs({ environmentId: this.environmentId });
  }
}
