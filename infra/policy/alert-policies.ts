// The Azure Monitor Baseline Alerts the service needs beyond the queues' own: a crash-looping or maxed-out consumer
// app, a guard database refusing connections, filling up, overloaded or nearing transaction-id wraparound, and a
// Premium namespace's messaging units running hot. A metric alert counts when it is enabled, scoped to the resource
// and watches the metric. Plain policy objects; only type imports from @pulumi/policy.
import type { PolicyResource, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { logAlertSignals, logSignalProblems, metricAlertSignals, metricSignalProblems, resourceTypeOfId } from "../specs/index.js";
import { list, obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";


/** The metrics each watched resource type must have an alert on. */
const REQUIRED: { type: string; nameKey: string; what: string; metrics: string[]; applies?: (resource: PolicyResource) => boolean }[] = [
  { type: types.containerApp, nameKey: "containerAppName", what: "app", metrics: ["RestartCount", "Replicas"] },
  { type: types.postgresServer, nameKey: "serverName", what: "server", metrics: ["is_db_alive", "connections_failed", "storage_percent", "cpu_percent", "maximum_used_transactionIDs"] },
  {
    type: types.namespace,
    nameKey: "namespaceName",
    what: "namespace",
    metrics: ["NamespaceCpuUsage", "NamespaceMemoryUsage"],
    applies: (namespace) => obj(namespace.props.sku).name === "Premium",
  },
];

function watchedMetrics(args: StackValidationArgs, resourceId: unknown): Set<string> {
  const metrics = new Set<string>();
  if (typeof resourceId !== "string") return metrics;
  for (const alert of ofType(args, types.metricAlert)) {
    if (alert.props.enabled !== true || !list(alert.props.scopes).some((scope) => String(scope).toLowerCase() === resourceId.toLowerCase())) continue;
    for (const criterion of list(obj(alert.props.criteria).allOf)) metrics.add(String(obj(criterion).metricName));
  }
  return metrics;
}

export const baselineAlerts: StackValidationPolicy = {
  name: "service-baseline-alerts",
  description:
    "Consumer apps alert on restarts and replicas (none, at maximum); guard database servers on liveness, failed connections, storage, CPU and transaction-id wraparound; Premium namespaces on CPU and memory.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    for (const { type, nameKey, what, metrics, applies } of REQUIRED) {
      for (const resource of ofType(args, type).filter((candidate) => applies?.(candidate) ?? true)) {
        const watched = watchedMetrics(args, resource.props.id);
        const missing = metrics.filter((metric) => !watched.has(metric));
        if (missing.length > 0) report(`${what} ${String(resource.props[nameKey] ?? resource.name)}: no enabled metric alert on ${missing.join(", ")}`, resource.urn);
      }
    }
  },
};

/** Whether some diagnostic setting sends platform metrics into the workspace a log alert reads. */
function metricsExportedTo(args: StackValidationArgs, workspaceId: unknown): boolean {
  return ofType(args, types.diagnosticSetting).some(
    (setting) =>
      String(setting.props.workspaceId).toLowerCase() === String(workspaceId).toLowerCase() &&
      list(setting.props.metrics).some((metric) => obj(metric).enabled !== false),
  );
}

export const alertsCanFire: StackValidationPolicy = {
  name: "alerts-can-fire",
  description:
    "Every alert reads a signal that arrives: a metric alert a platform metric of its scope's resource type, with an aggregation and dimensions Microsoft's supported-metrics table lists (and the aggregation Microsoft's service docs prescribe); a log alert a table something fills (AzureMetrics only with metrics diagnostic settings export, DS Export: Yes).",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    for (const alert of ofType(args, types.metricAlert)) {
      const scopeType = resourceTypeOfId(list(alert.props.scopes)[0]);
      for (const signal of metricAlertSignals(alert.props)) {
        if (signal.kind !== "platform metric") continue;
        for (const problem of metricSignalProblems(signal, scopeType)) report(`metric alert ${String(alert.props.ruleName ?? alert.name)} cannot fire as intended: ${problem}`, alert.urn);
      }
    }
    for (const alert of ofType(args, types.scheduledQueryRule)) {
      for (const signal of logAlertSignals(alert.props)) {
        if (signal.kind !== "log") continue;
        const problems = logSignalProblems(signal);
        if (signal.table === "AzureMetrics" && !metricsExportedTo(args, list(alert.props.scopes)[0])) problems.push("no diagnostic setting exports metrics into the workspace it reads");
        for (const problem of problems) report(`log alert ${String(alert.props.ruleName ?? alert.name)} cannot fire as intended: ${problem}`, alert.urn);
      }
    }
  },
};

/**
 * An alert on an app's replica count that the app trips at rest fires on day one and never resolves, so it is noise
 * an on-call learns to ignore: `Replicas` above a threshold below the app's minimum (dev's 1..1 app "at max" on
 * Replicas Minimum > 0), or below a threshold above its maximum.
 */
export const alertsQuietAtRest: StackValidationPolicy = {
  name: "alerts-quiet-at-rest",
  description: "No alert on a consumer app's Replicas fires while the app runs as configured: a threshold its minReplicas already passes (or its maxReplicas cannot reach) fires on day one and never resolves.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const apps = ofType(args, types.containerApp);
    for (const alert of ofType(args, types.metricAlert).filter((candidate) => candidate.props.enabled === true)) {
      const app = apps.find((candidate) => list(alert.props.scopes).some((scope) => String(scope).toLowerCase() === String(candidate.props.id).toLowerCase()));
      if (!app) continue;
      const scale = obj(obj(app.props.template).scale);
      const min = typeof scale.minReplicas === "number" ? scale.minReplicas : 0;
      const max = typeof scale.maxReplicas === "number" ? scale.maxReplicas : 10;
      for (const criterion of list(obj(alert.props.criteria).allOf).map(obj)) {
        if (criterion.metricName !== "Replicas") continue;
        const threshold = Number(criterion.threshold);
        const atRest = criterion.operator === "GreaterThan" ? min > threshold : criterion.operator === "LessThan" ? max < threshold : false;
        if (atRest) {
          report(
            `alert ${String(alert.props.ruleName ?? alert.name)}: Replicas ${String(criterion.operator)} ${threshold} on app ${String(app.props.containerAppName)}, which runs ${min}..${max} replicas: it fires on day one and never resolves`,
            alert.urn,
          );
        }
      }
    }
  },
};
