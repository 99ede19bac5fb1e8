// What each alert watches, and whether that signal can ever reach it. A metric alert reads a platform metric straight
// from Azure Monitor: the metric must exist on the scoped resource type, with the aggregation and dimensions it
// uses (Microsoft's supported-metrics tables, kept as data in infra/data/metrics with their source). A log alert
// reads a table something fills: AzureMetrics only holds metrics diagnostic settings export ("DS Export: Yes"), and
// Application Insights' tables hold what the consumers' telemetry sends. The plan names each alert's signal, and the
// policy `alerts-can-fire` refuses an alert whose signal never arrives. Free of Pulumi imports.
import serviceBus from "../data/metrics/servicebus-namespaces.json" with { type: "json" };
import postgres from "../data/metrics/postgresql-flexible-servers.json" with { type: "json" };
import containerApps from "../data/metrics/app-container-apps.json" with { type: "json" };
import jobs from "../data/metrics/app-jobs.json" with { type: "json" };

export interface CatalogMetric {
  aggregations: string[];
  dimensions: string[];
  timeGrains: string[];
  dsExport: boolean;
  /** The aggregation Microsoft's service documentation prescribes, where it names one (is_db_alive: Maximum). */
  recommendedAggregation?: string;
}

export interface MetricTable {
  resourceType: string;
  source: { title: string; url: string };
  metrics: Record<string, CatalogMetric>;
}

/** Microsoft's supported-metrics tables, by resource type (lower case: Azure compares types case-insensitively). */
export const metricTables: ReadonlyMap<string, MetricTable> = new Map(
  ([serviceBus, postgres, containerApps, jobs] as MetricTable[]).map((table) => [table.resourceType.toLowerCase(), table]),
);

/** Application Insights tables the consumers' OpenTelemetry exporter fills (APPLICATIONINSIGHTS_CONNECTION_STRING). */
const TELEMETRY_TABLES = new Set(["customMetrics", "customEvents", "traces", "requests", "dependencies", "exceptions"]);

export type AlertSignal =
  | { kind: "platform metric"; resourceType: string; metric: string; aggregation: string; dimensions: string[]; source: string }
  | { kind: "log"; table: string; filledBy: string; metrics?: string[] };

type Props = Record<string, unknown>;
const obj = (value: unknown): Props => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Props) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The resource type an ARM id names (`.../providers/Microsoft.ServiceBus/namespaces/x` -> Microsoft.ServiceBus/namespaces). */
export function resourceTypeOfId(id: unknown): string | undefined {
  const match = typeof id === "string" ? /\/providers\/([^/]+\/[^/]+)\/[^/]+$/i.exec(id) : null;
  return match?.[1];
}

/** A metric alert's criteria, each a signal. */
export function metricAlertSignals(props: Props): AlertSignal[] {
  return list(obj(props.criteria).allOf).map((entry) => {
    const criterion = obj(entry);
    const resourceType = String(criterion.metricNamespace ?? resourceTypeOfId(list(props.scopes)[0]) ?? "?");
    const table = metricTables.get(resourceType.toLowerCase());
    return {
      kind: "platform metric",
      resourceType,
      metric: String(criterion.metricName),
      aggregation: String(criterion.timeAggregation),
      dimensions: list(criterion.dimensions).map((dimension) => String(obj(dimension).name)),
      source: table?.source.url ?? "no table kept for this resource type",
    };
  });
}

/** A log alert's queries, each a signal: the table it reads and what fills it. */
export function logAlertSignals(props: Props): AlertSignal[] {
  const scopeType = resourceTypeOfId(list(props.scopes)[0]) ?? "?";
  return list(obj(props.criteria).allOf).map((entry) => {
    const query = String(obj(entry).query ?? "");
    const table = /^\s*([A-Za-z_]+)/.exec(query)?.[1] ?? "?";
    if (table === "AzureMetrics") {
      const metrics = [...query.matchAll(/MetricName\s*==\s*"([^"]+)"/g)].map((match) => match[1] as string);
      return { kind: "log", table, filledBy: `diagnostic settings exporting platform metrics to workspace (${scopeType})`, metrics };
    }
    const filledBy = TELEMETRY_TABLES.has(table) && /microsoft\.insights\/components/i.test(scopeType)
      ? "the consumers' OpenTelemetry exporter, APPLICATIONINSIGHTS_CONNECTION_STRING"
      : `nothing this kit deploys fills ${table} in ${scopeType}`;
    return { kind: "log", table, filledBy };
  });
}

/** Why a metric signal can never fire (empty: it can), against Microsoft's table for its resource type. */
export function metricSignalProblems(signal: Extract<AlertSignal, { kind: "platform metric" }>, scopeType: string | undefined): string[] {
  const table = metricTables.get(signal.resourceType.toLowerCase());
  if (!table) return [`no supported-metrics table is kept for ${signal.resourceType} (infra/data/metrics): add Microsoft's`];
  const problems: string[] = [];
  if (scopeType !== undefined && scopeType.toLowerCase() !== signal.resourceType.toLowerCase()) {
    problems.push(`it reads ${signal.resourceType} metrics but is scoped to a ${scopeType}`);
  }
  const metric = table.metrics[signal.metric];
  if (!metric) return [...problems, `${signal.resourceType} has no metric ${signal.metric} (${table.source.title})`];
  if (!metric.aggregations.includes(signal.aggregation)) {
    problems.push(`${signal.metric} supports ${metric.aggregations.join(", ")}, not ${signal.aggregation} (${table.source.title})`);
  }
  if (metric.recommendedAggregation !== undefined && metric.recommendedAggregation !== signal.aggregation) {
    problems.push(`${signal.metric} is aggregated with ${metric.recommendedAggregation} as Microsoft documents it, not ${signal.aggregation}`);
  }
  for (const dimension of signal.dimensions.filter((name) => !metric.dimensions.includes(name))) {
    problems.push(`${signal.metric} has no dimension ${dimension} (it has ${metric.dimensions.join(", ") || "none"})`);
  }
  return problems;
}

/** Why a log signal can never fire: a table nothing fills, or metrics diagnostic settings never export. */
export function logSignalProblems(signal: Extract<AlertSignal, { kind: "log" }>): string[] {
  if (signal.table !== "AzureMetrics") return signal.filledBy.startsWith("nothing") ? [signal.filledBy] : [];
  return (signal.metrics ?? []).flatMap((name) => {
    const exported = [...metricTables.values()].some((table) => table.metrics[name]?.dsExport === true);
    return exported ? [] : [`AzureMetrics never holds ${name}: diagnostic settings do not export it (DS Export: No); alert on it with a metric alert`];
  });
}
