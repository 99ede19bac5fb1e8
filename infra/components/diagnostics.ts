// One diagnostic setting per watched resource, always into resource-specific ("Dedicated") tables: without
// `logAnalyticsDestinationType: "Dedicated"` Azure writes to the legacy, untyped AzureDiagnostics table.
import * as pulumi from "@pulumi/pulumi";
import { DiagnosticSetting } from "@pulumi/azure-native/monitor/index.js";

export interface DiagnosticsArgs {
  /** The watched resource. */
  resourceUri: pulumi.Input<string>;
  /** The diagnostic setting's name on that resource. */
  settingName: pulumi.Input<string>;
  workspaceId: pulumi.Input<string>;
  /** Default: every log category ("allLogs"). */
  logCategoryGroups?: string[];
  /** Default true: platform metrics go to the workspace's AzureMetrics table (only those Microsoft marks DS Export: Yes). */
  metrics?: boolean;
}

export function dedicatedDiagnostics(name: string, args: DiagnosticsArgs, opts: pulumi.CustomResourceOptions): DiagnosticSetting {
  return new DiagnosticSetting(
    name,
    {
      name: args.settingName,
      resourceUri: args.resourceUri,
      workspaceId: args.workspaceId,
      logAnalyticsDestinationType: "Dedicated",
      logs: (args.logCategoryGroups ?? ["allLogs"]).map((categoryGroup) => ({ categoryGroup, enabled: true })),
      metrics: args.metrics === false ? [] : [{ category: "AllMetrics", enabled: true }],
    },
    opts,
  );
}
