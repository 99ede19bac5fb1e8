// Where the billing service reports: one Log Analytics workspace (diagnostic settings of the namespace, database,
// vault and Container Apps environment land here, in Dedicated tables) and a workspace-based Application Insights
// for the consumers' own telemetry (APPLICATIONINSIGHTS_CONNECTION_STRING), with local auth disabled: ingestion takes
// Entra tokens only (the consumers' identities hold Monitoring Metrics Publisher), so nobody holding the connection
// string can forge billing metrics. The connection string is a Pulumi secret all the same (encrypted in state, in
// the component's own outputs and wherever it flows). Built first: the other components
// take `workspaceId`. Extensible: workbooks and further alerts take `workspaceId` / `appInsightsId` from here.
import * as pulumi from "@pulumi/pulumi";
import { Component } from "@pulumi/azure-native/applicationinsights/index.js";
import { getSharedKeysOutput, Workspace } from "@pulumi/azure-native/operationalinsights/index.js";

export interface ObservabilityArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  workspaceName: string;
  appInsightsName: string;
  /** Days the workspace keeps data, default 30 (Log Analytics' included retention). */
  retentionInDays?: number;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class Observability extends pulumi.ComponentResource {
  readonly workspace: Workspace;
  readonly workspaceId: pulumi.Output<string>;
  /** The workspace's customer id (Container Apps' appLogsConfiguration). */
  readonly customerId: pulumi.Output<string>;
  /** The workspace's shared key, secret: Container Apps ships its logs with it. */
  readonly sharedKey: pulumi.Output<string>;
  readonly appInsights: Component;
  readonly appInsightsId: pulumi.Output<string>;
  /** Secret: it names the ingestion endpoint and instrumentation key (no ingestion right with local auth off). */
  readonly appInsightsConnectionString: pulumi.Output<string>;

  constructor(name: string, args: ObservabilityArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:Observability", name, {}, opts);
    this.workspace = new Workspace(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        workspaceName: args.workspaceName,
        sku: { name: "PerGB2018" },
        retentionInDays: args.retentionInDays ?? 30,
        tags: args.tags,
      },
      { parent: this },
    );
    this.workspaceId = this.workspace.id;
    this.customerId = this.workspace.customerId;
    this.sharedKey = pulumi.secret(
      getSharedKeysOutput({ resourceGroupName: args.resourceGroupName, workspaceName: this.workspace.name }, { parent: this }).apply(
        (keys) => keys.primarySharedKey ?? "",
      ),
    );
    this.appInsights = new Component(
      `${name}-appinsights`,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        resourceName: args.appInsightsName,
        kind: "web",
        applicationType: "web",
        workspaceResourceId: this.workspaceId,
        ingestionMode: "LogAnalytics",
        disableLocalAuth: true,
        tags: args.tags,
      },
      { parent: this, additionalSecretOutputs: ["connectionString", "instrumentationKey"] },
    );
    this.appInsightsId = this.appInsights.id;
    this.appInsightsConnectionString = pulumi.secret(this.appInsights.connectionString);

    this.registerOutputs({
      workspaceId: this.workspaceId,
      customerId: this.customerId,
      appInsightsId: this.appInsightsId,
    });
  }
}
