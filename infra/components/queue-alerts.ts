// A billing queue's alerts: one metric alert per failure mode (queueAlertSpecs), scoped to the namespace and
// filtered to the queue by its EntityName dimension, on the namespace's action group.
import * as pulumi from "@pulumi/pulumi";
import { MetricAlert } from "@pulumi/azure-native/monitor/index.js";
import type { Queue } from "@pulumi/azure-native/servicebus/index.js";
import { DEFAULT_BACKLOG_THRESHOLD, defaultSeverities, METRIC_NAMESPACE, queueAlertSpecs, type AlertSeverities } from "../specs/index.js";
import type { BillingNamespace } from "./billing-namespace.js";

export interface QueueAlertsArgs {
  /** The component's resource name; each alert's is `<name>-<key>`. */
  name: string;
  namespace: BillingNamespace;
  queueName: string;
  queue: Queue;
  alerts?: { severities?: Partial<AlertSeverities>; backlogThreshold?: number; retryBacklogThreshold?: number } | undefined;
}

/** The queue's metric alerts, children of `parent`, each created after the queue. */
export function queueAlerts(parent: pulumi.Resource, { name, namespace, queueName, queue, alerts }: QueueAlertsArgs): MetricAlert[] {
  const severities = { ...defaultSeverities, ...alerts?.severities };
  const backlogThreshold = alerts?.backlogThreshold ?? DEFAULT_BACKLOG_THRESHOLD;
  return queueAlertSpecs(queueName, severities, backlogThreshold, alerts?.retryBacklogThreshold).map(
    (spec) =>
      new MetricAlert(
        `${name}-${spec.key}`,
        {
          resourceGroupName: namespace.resourceGroupName,
          ruleName: pulumi.interpolate`${namespace.namespaceName}-${queueName}-${spec.key}`,
          description: spec.description,
          location: "global",
          enabled: true,
          severity: spec.severity,
          scopes: [namespace.namespaceId],
          evaluationFrequency: spec.evaluationFrequency ?? "PT1M",
          windowSize: spec.windowSize,
          autoMitigate: spec.autoMitigate ?? true,
          criteria: {
            odataType: "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria",
            allOf: [
              {
                criterionType: "StaticThresholdCriterion",
                name: spec.key,
                metricNamespace: METRIC_NAMESPACE,
                metricName: spec.metricName,
                operator: "GreaterThan",
                threshold: spec.threshold,
                timeAggregation: spec.timeAggregation,
                dimensions: [{ name: "EntityName", operator: "Include", values: [queueName] }],
              },
            ],
          },
          actions: namespace.actionGroupId ? [{ actionGroupId: namespace.actionGroupId }] : [],
        },
        { parent, dependsOn: [queue] },
      ),
  );
}
