// Each alert in words for the plan's text: the signal it watches, how it is aggregated, over what window, and the
// threshold with its unit ("backlog above 1000 messages", "oldest pending billing above 753 s"), its severity by
// Azure's name, and whether it repeats. The JSON keeps the raw inputs (`resources`) and signals (`alerts`).
import type { MockedResource } from "./azure-mocks.js";
import { isoSpan } from "./plan-units.js";

/** A metric (platform, or the consumers' own in Application Insights) as a reader names it, and its unit. */
const metricWords: Record<string, { label: string; unit: string; scale?: number }> = {
  DeadletteredMessages: { label: "dead letters", unit: "messages" },
  ThrottledRequests: { label: "throttled requests", unit: "requests" },
  ServerErrors: { label: "server errors", unit: "errors" },
  AbandonMessage: { label: "abandoned messages", unit: "messages" },
  ActiveMessages: { label: "backlog", unit: "messages" },
  UserErrors: { label: "user errors (lost locks)", unit: "errors" },
  ScheduledMessages: { label: "scheduled retries", unit: "messages" },
  Replicas: { label: "running replicas", unit: "replicas" },
  RestartCount: { label: "restarts", unit: "restarts" },
  is_db_alive: { label: "database alive (1 up, 0 down)", unit: "" },
  cpu_percent: { label: "CPU", unit: "%" },
  memory_percent: { label: "memory", unit: "%" },
  storage_percent: { label: "storage", unit: "%" },
  connections_failed: { label: "failed connections", unit: "connections" },
  maximum_used_transactionIDs: { label: "transaction ids used since the oldest unfrozen row", unit: "ids" },
  NamespaceCpuUsage: { label: "namespace CPU", unit: "%" },
  NamespaceMemoryUsage: { label: "namespace memory", unit: "%" },
  Executions: { label: "failed audit executions", unit: "executions" },
  "chargeguard.billing.outcomes": { label: "unknown billing outcomes", unit: "billings" },
  "chargeguard.pending.oldest_age": { label: "oldest pending billing", unit: "s" },
  "chargeguard.spend.utilization": { label: "spend cap used", unit: "%", scale: 100 },
  "chargeguard.dead_letters": { label: "dead letters reported by the consumers", unit: "messages" },
  "chargeguard.dependency.breaker.state": { label: "a dependency's breaker open (1 open)", unit: "" },
};

const operatorWords: Record<string, string> = {
  GreaterThan: "above",
  GreaterThanOrEqual: "at or above",
  LessThan: "below",
  LessThanOrEqual: "at or below",
  Equals: "equal to",
};

const aggregationWords: Record<string, string> = { Maximum: "highest", Minimum: "lowest", Average: "average", Total: "total", Count: "count of" };

/** Azure Monitor's names for severities 0..4. */
export const severityNames = ["critical", "error", "warning", "informational", "verbose"] as const;
export const severityWords = (severity: unknown): string => `sev ${String(severity)} ${severityNames[Number(severity)] ?? ""}`.trimEnd();

interface Criterion {
  metricName?: string;
  query?: string;
  operator?: string;
  threshold?: number;
  timeAggregation?: string;
  dimensions?: { name?: string; values?: string[] }[];
}

export const criteriaOf = (alert: MockedResource): Criterion[] => (alert.inputs.criteria as { allOf?: Criterion[] } | undefined)?.allOf ?? [];

/** The metric a criterion reads: a platform metric's name, or the consumers' metric a log query filters on. */
function metricOf(criterion: Criterion): string {
  if (criterion.metricName) return criterion.metricName;
  return /name\s*==\s*"([^"]+)"/.exec(criterion.query ?? "")?.[1] ?? "a log query";
}

/** "backlog above 1000 messages": a criterion's signal and threshold with its unit. */
export function thresholdWords(criterion: Criterion): string {
  const metric = metricOf(criterion);
  const words = metricWords[metric] ?? { label: metric, unit: "" };
  const value = (criterion.threshold ?? 0) * (words.scale ?? 1);
  // "1 replica", not "1 replicas"; "s" (seconds) and "%" stay as they are.
  const noun = value === 1 && words.unit.length > 1 && words.unit.endsWith("s") ? words.unit.slice(0, -1) : words.unit;
  const unit = noun === "%" ? "%" : noun ? ` ${noun}` : "";
  return `${words.label} ${operatorWords[criterion.operator ?? ""] ?? String(criterion.operator)} ${value}${unit}`;
}

/** Whether a metric alert watches this queue (its EntityName dimension names it). */
export function watchesQueue(alert: MockedResource, queueName: string): boolean {
  return criteriaOf(alert).some((criterion) =>
    (criterion.dimensions ?? []).some((d) => d.name === "EntityName" && (d.values ?? []).includes(queueName)),
  );
}

const stateless = (alert: MockedResource) => alert.inputs.autoMitigate === false;

/** Short, for a queue's summary: "dead letters above 0 messages (again every 15 min while true)". */
export function shortAlertWords(alert: MockedResource): string {
  const criterion = criteriaOf(alert)[0] ?? {};
  const notes = [
    stateless(alert) ? `again every ${isoSpan(alert.inputs.evaluationFrequency)} while true` : "",
    Array.isArray(alert.inputs.actions) && alert.inputs.actions.length === 0 ? "notifies nobody" : "",
  ].filter(Boolean);
  return `${thresholdWords(criterion)}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`;
}

/**
 * A queue's alerts grouped by severity, most urgent first, as items to wrap: "sev 0 critical: dead letters above 0
 * messages (again every 15 min while true);", "sev 1 error: throttled requests above 0 requests,", ...
 */
export function alertsBySeverity(alerts: readonly MockedResource[]): string[] {
  const groups = new Map<number, string[]>();
  for (const alert of alerts) {
    const severity = Number(alert.inputs.severity);
    // The stateful and the repeating alert on one signal read as one: "dead letters above 0 messages (again ...)".
    const words = shortAlertWords(alert);
    const group = groups.get(severity) ?? [];
    const same = group.findIndex((entry) => words.startsWith(`${entry} (`) || entry.startsWith(`${words} (`));
    if (same >= 0) group[same] = words.length > (group[same] ?? "").length ? words : (group[same] ?? words);
    else group.push(words);
    groups.set(severity, group);
  }
  const sorted = [...groups].sort(([a], [b]) => a - b);
  return sorted.flatMap(([severity, words], g) =>
    words.map((text, i) => {
      const item = i === 0 ? `${severityWords(severity)}: ${text}` : text;
      if (i < words.length - 1) return `${item},`;
      return g < sorted.length - 1 ? `${item};` : item;
    }),
  );
}

/** What an alert is scoped to, by name: "queue usage-billing on sb-billing-prod", "psql-billing-prod". */
function scopeWords(alert: MockedResource): string {
  const scope = String((alert.inputs.scopes as unknown[] | undefined)?.[0] ?? "").split("/").pop() || "?";
  const entity = criteriaOf(alert)
    .flatMap((criterion) => criterion.dimensions ?? [])
    .find((dimension) => dimension.name === "EntityName")?.values?.join(", ");
  return entity ? `queue ${entity} on ${scope}` : scope;
}

/** Full, for --details: the rule, what it watches and how, when it fires, and its own description. */
export function alertDetailLines(alert: MockedResource): string[] {
  const inputs = alert.inputs;
  const criterion = criteriaOf(alert)[0] ?? {};
  const aggregation = aggregationWords[criterion.timeAggregation ?? ""] ?? criterion.timeAggregation ?? "";
  const kind = criterion.metricName ? "platform metric" : "consumers' metric in Application Insights (log query)";
  const lifecycle = stateless(alert) ? "stateless: notifies at every evaluation while true" : "fires once, resolves when clear";
  return [
    `  ${String(inputs.ruleName ?? alert.name)} (${severityWords(inputs.severity)}) on ${scopeWords(alert)}`,
    `    fires on the ${aggregation} ${thresholdWords(criterion)} over ${isoSpan(inputs.windowSize)}, checked every ${isoSpan(inputs.evaluationFrequency)}; ${kind} ${metricOf(criterion)}; ${lifecycle}`,
    ...(typeof inputs.description === "string" ? [`    ${inputs.description}`] : []),
  ];
}
