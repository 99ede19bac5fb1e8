// The metric alerts the service's compute and database get (Azure Monitor Baseline Alerts for Container Apps and
// PostgreSQL Flexible). Pure data: ServiceAlerts turns each into a monitor.MetricAlert on the resource.

export interface ResourceAlertSpec {
  key: string;
  metricNamespace: string;
  metricName: string;
  operator: "GreaterThan" | "LessThan";
  timeAggregation: "Maximum" | "Minimum" | "Average" | "Total";
  threshold: number;
  severity: number;
  windowSize: string;
  description: string;
}

/**
 * An app's alerts. "Replicas at max" only where the app can scale: with min == max (dev's 1..1, a zone-redundant app
 * whose budgets allow only its two) it runs at its maximum from the first minute and the alert would fire on day one
 * and never resolve; the queue's backlog alert still says when it falls behind.
 */
export const containerAppAlertSpecs = (appName: string, replicas: { minReplicas: number; maxReplicas: number }): ResourceAlertSpec[] => [
  {
    key: "restarts",
    metricNamespace: "Microsoft.App/containerApps",
    metricName: "RestartCount",
    operator: "GreaterThan",
    timeAggregation: "Maximum",
    threshold: 3,
    severity: 2,
    windowSize: "PT15M",
    description: `Consumer ${appName} restarted more than 3 times: a crash loop leaves billing events to lapse and redeliver.`,
  },
  {
    key: "no-replicas",
    metricNamespace: "Microsoft.App/containerApps",
    metricName: "Replicas",
    operator: "LessThan",
    timeAggregation: "Maximum",
    threshold: 1,
    severity: 1,
    windowSize: "PT5M",
    description: `Consumer ${appName} has no running replica: nothing is charging.`,
  },
  ...(replicas.minReplicas >= replicas.maxReplicas ? [] : [replicasAtMax(appName, replicas.maxReplicas)]),
];

const replicasAtMax = (appName: string, maxReplicas: number): ResourceAlertSpec => ({
  key: "replicas-at-max",
  metricNamespace: "Microsoft.App/containerApps",
  metricName: "Replicas",
  operator: "GreaterThan",
  // At its maximum for the whole window: its lowest count over 15 minutes was never below the ceiling.
  timeAggregation: "Minimum",
  threshold: maxReplicas - 1,
  severity: 2,
  windowSize: "PT15M",
  description: `Consumer ${appName} ran at its maximum of ${maxReplicas} replica(s) for 15 minutes: the backlog grows faster than the Stripe and connection budgets let it drain.`,
});

/** Premium namespaces only: messaging units' CPU and memory (Standard has no such metrics). */
export const premiumNamespaceAlertSpecs = (namespaceName: string): ResourceAlertSpec[] =>
  (["NamespaceCpuUsage", "NamespaceMemoryUsage"] as const).map((metricName) => ({
    key: metricName === "NamespaceCpuUsage" ? "cpu" : "memory",
    metricNamespace: "Microsoft.ServiceBus/namespaces",
    metricName,
    operator: "GreaterThan" as const,
    timeAggregation: "Maximum" as const,
    threshold: 70,
    severity: 2,
    windowSize: "PT15M",
    description: `Namespace ${namespaceName} is above 70% ${metricName === "NamespaceCpuUsage" ? "CPU" : "memory"} on its messaging units: Premium throttles past its capacity, and throttled lock renewals let locks lapse mid-charge.`,
  }));

export const postgresAlertSpecs = (serverName: string): ResourceAlertSpec[] => [
  {
    key: "alive",
    metricNamespace: "Microsoft.DBforPostgreSQL/flexibleServers",
    metricName: "is_db_alive",
    operator: "LessThan",
    // Sampled every 20 s: Microsoft's monitoring doc aggregates it with MAX (down for the whole minute), so a blip or
    // a zone-redundant HA failover does not page; Minimum did.
    timeAggregation: "Maximum",
    threshold: 1,
    severity: 1,
    windowSize: "PT5M",
    description: `The guard database ${serverName} is down: consumers cannot claim billings, so nothing is charged.`,
  },
  ...(["storage_percent", "cpu_percent", "memory_percent"] as const).map((metricName) => ({
    key: metricName.replace("_", "-"),
    metricNamespace: "Microsoft.DBforPostgreSQL/flexibleServers",
    metricName,
    operator: "GreaterThan" as const,
    timeAggregation: metricName === "storage_percent" ? ("Maximum" as const) : ("Average" as const),
    threshold: 90,
    severity: 2,
    windowSize: "PT15M",
    description: `The guard database ${serverName} is above 90% ${metricName.split("_")[0]}.`,
  })),
  {
    key: "connections-failed",
    metricNamespace: "Microsoft.DBforPostgreSQL/flexibleServers",
    metricName: "connections_failed",
    operator: "GreaterThan",
    timeAggregation: "Total",
    threshold: 10,
    severity: 2,
    windowSize: "PT15M",
    description: `More than 10 connections to the guard database ${serverName} failed in 15 minutes (an expired Entra token, max_connections reached, a network path lost): claims fail and billings wait.`,
  },
  {
    key: "txid-wraparound",
    metricNamespace: "Microsoft.DBforPostgreSQL/flexibleServers",
    // An enhanced metric: GuardDatabase turns on metrics.collector_database_activity for it.
    metricName: "maximum_used_transactionIDs",
    operator: "GreaterThan",
    timeAggregation: "Maximum",
    threshold: 1_000_000_000,
    severity: 1,
    windowSize: "PT1H",
    description: `The guard database ${serverName} has used over a billion transaction ids since its oldest unfrozen row: PostgreSQL stops accepting writes near 2^31 (wraparound) unless vacuum freezes; check autovacuum.`,
  },
];
