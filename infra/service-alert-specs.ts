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

export const containerAppAlertSpecs = (appName: string): ResourceAlertSpec[] => [
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
];

export const postgresAlertSpecs = (serverName: string): ResourceAlertSpec[] => [
  {
    key: "alive",
    metricNamespace: "Microsoft.DBforPostgreSQL/flexibleServers",
    metricName: "is_db_alive",
    operator: "LessThan",
    timeAggregation: "Minimum",
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
];
