// The Container Apps environment the consumers run in, in production inside the VNet's apps subnet (internal:
// consumers take no inbound traffic) and zone redundant. Its logs go to the workspace once: destination
// "azure-monitor" hands them to the diagnostic setting (Dedicated tables); "log-analytics" as well would write each
// console line twice ([Log storage and monitoring options in Azure Container Apps](https://learn.microsoft.com/azure/container-apps/log-options)).
import * as pulumi from "@pulumi/pulumi";
import { ManagedEnvironment } from "@pulumi/azure-native/app/index.js";
import { dedicatedDiagnostics } from "./diagnostics.js";

export interface ConsumerEnvironmentArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  environmentName: string;
  logAnalytics: { workspaceId: pulumi.Input<string> };
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
        // No shared key needed either: the diagnostic setting below is the only path to the workspace.
        appLogsConfiguration: { destination: "azure-monitor" },
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
