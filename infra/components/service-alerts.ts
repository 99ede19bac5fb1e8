// Metric alerts on the service's compute and database (restarts, zero replicas, database alive, storage, CPU,
// memory), notifying the namespace's action group. The queues' own alerts live in BillingQueue.
import * as pulumi from "@pulumi/pulumi";
import { MetricAlert } from "@pulumi/azure-native/monitor/index.js";
import type { ResourceAlertSpec } from "../specs/index.js";

export interface ServiceAlertsArgs {
  resourceGroupName: pulumi.Input<string>;
  actionGroupId?: pulumi.Input<string>;
  /** Each watched resource with its specs. */
  targets: { key: string; resourceId: pulumi.Input<string>; specs: ResourceAlertSpec[] }[];
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class ServiceAlerts extends pulumi.ComponentResource {
  readonly alerts: MetricAlert[];

  constructor(name: string, args: ServiceAlertsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:ServiceAlerts", name, {}, opts);
    this.alerts = args.targets.flatMap((target) =>
      target.specs.map(
        (spec) =>
          new MetricAlert(
            `${name}-${target.key}-${spec.key}`,
            {
              resourceGroupName: args.resourceGroupName,
              ruleName: `${target.key}-${spec.key}`,
              description: spec.description,
              location: "global",
              enabled: true,
              severity: spec.severity,
              scopes: [target.resourceId],
              evaluationFrequency: "PT1M",
              windowSize: spec.windowSize,
              autoMitigate: true,
              criteria: {
                odataType: "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria",
                allOf: [
                  {
                    criterionType: "StaticThresholdCriterion",
                    name: spec.key,
                    metricNamespace: spec.metricNamespace,
                    metricName: spec.metricName,
                    operator: spec.operator,
                    threshold: spec.threshold,
                    timeAggregation: spec.timeAggregation,
                  },
                ],
              },
              actions: args.actionGroupId ? [{ actionGroupId: args.actionGroupId }] : [],
              tags: args.tags,
            },
            { parent: this },
          ),
      ),
    );
    this.registerOutputs({ alertIds: this.alerts.map((alert) => alert.id) });
  }
}
