// What an operator is alerted on and sees about billing health, from the consumers' own metrics (runtime/telemetry)
// as the Azure Monitor OpenTelemetry exporter stores them in Application Insights (`customMetrics`: name,
// valueSum/valueMax, customDimensions). Pure data: the BillingHealth component deploys it. The broker's own metrics
// stay in the namespace's metric alerts (alert-specs.ts).

/**
 * The runtime's metric and attribute names (runtime/telemetry/metric-names.ts, their one source). infra may not
 * import runtime, so these are a copy that a test proves equal.
 */
export const metricNames = {
  outcomes: "chargeguard.billing.outcomes",
  chargedAmount: "chargeguard.charged.amount",
  duplicatesPrevented: "chargeguard.duplicates_prevented",
  retriesScheduled: "chargeguard.retries.scheduled",
  deadLetters: "chargeguard.dead_letters",
  lockRenewalFailures: "chargeguard.lock.renewal.failures",
  guardOperationDuration: "chargeguard.guard.operation.duration",
  stripeRequestDuration: "chargeguard.stripe.request.duration",
  spendUtilization: "chargeguard.spend.utilization",
  pendingBillings: "chargeguard.pending.billings",
  oldestPendingAge: "chargeguard.pending.oldest_age",
  breakerState: "chargeguard.dependency.breaker.state",
} as const;

export const attributeNames = {
  outcome: "chargeguard.outcome",
  preventedBy: "chargeguard.prevented_by",
  source: "chargeguard.source",
  currency: "chargeguard.currency",
  billingPeriod: "chargeguard.billing_period",
  deadLetterReason: "chargeguard.dead_letter.reason",
  guardOperation: "chargeguard.guard.operation",
  dependency: "chargeguard.dependency",
} as const;

export interface BillingHealthThresholds {
  /** Unknown outcomes per window that page someone (a Stripe or guard outage); default 5 in 15 minutes. */
  unknownOutcomes: number;
  /** Oldest pending billing, in seconds, past which the reconciler is needed (the stack derives it from the queue's tuning). */
  oldestPendingSeconds: number;
  /** Spend utilization (usage over cap) of a period that warns before the cap refuses billings; default 0.9. */
  spendUtilization: number;
}

export interface BillingHealthSeverities {
  unknownOutcomes: number;
  oldestPending: number;
  spendUtilization: number;
  deadLetters: number;
  breakerOpen: number;
}

export const defaultBillingHealthSeverities: BillingHealthSeverities = { unknownOutcomes: 1, oldestPending: 2, spendUtilization: 2, deadLetters: 1, breakerOpen: 1 };

export interface BillingHealthAlertSpec {
  key: string;
  description: string;
  /** KQL over the Application Insights resource; its `value` column is compared with the threshold. */
  query: string;
  threshold: number;
  /** Split by these columns: one alert per value (a reason, a period). */
  dimensions: string[];
  severity: number;
  windowSize: string;
}

const dimension = (attribute: string) => `tostring(customDimensions["${attribute}"])`;

export function billingHealthAlertSpecs(thresholds: BillingHealthThresholds, severities: BillingHealthSeverities): BillingHealthAlertSpec[] {
  return [
    {
      key: "unknown-outcomes",
      description: `More than ${thresholds.unknownOutcomes} billings ended with an unknown outcome in 15 minutes: Stripe or the guard is failing; every one is retried with its key.`,
      query: `customMetrics
| where name == "${metricNames.outcomes}" and ${dimension(attributeNames.outcome)} == "unknown"
| summarize value = sum(valueSum)`,
      threshold: thresholds.unknownOutcomes,
      dimensions: [],
      severity: severities.unknownOutcomes,
      windowSize: "PT15M",
    },
    {
      key: "oldest-pending",
      description: `A billing has been pending for more than ${thresholds.oldestPendingSeconds} s, past any lease: run chargeguard reconcile.`,
      query: `customMetrics
| where name == "${metricNames.oldestPendingAge}"
| summarize value = max(valueMax)`,
      threshold: thresholds.oldestPendingSeconds,
      dimensions: [],
      severity: severities.oldestPending,
      windowSize: "PT15M",
    },
    {
      key: "spend-utilization",
      description: `A billing period has used more than ${Math.round(thresholds.spendUtilization * 100)}% of its spend cap: billings past the cap will be dead-lettered.`,
      query: `customMetrics
| where name == "${metricNames.spendUtilization}"
| extend period = ${dimension(attributeNames.billingPeriod)}, currency = ${dimension(attributeNames.currency)}
| summarize value = max(valueMax) by period, currency`,
      threshold: thresholds.spendUtilization,
      dimensions: ["period", "currency"],
      severity: severities.spendUtilization,
      windowSize: "PT15M",
    },
    {
      key: "dead-letters",
      description: "Billing events were dead-lettered (by reason): a customer may not have been charged. Inspect them with chargeguard dlq.",
      query: `customMetrics
| where name == "${metricNames.deadLetters}"
| extend reason = ${dimension(attributeNames.deadLetterReason)}
| summarize value = sum(valueSum) by reason`,
      threshold: 0,
      dimensions: ["reason"],
      severity: severities.deadLetters,
      windowSize: "PT5M",
    },
    {
      key: "breaker-open",
      description:
        "A replica has paused intake for 5 minutes because a dependency (Stripe, the database, the vault) is down: the backlog waits on the queue, " +
        "and events give up only at their deadline (the message's time-to-live).",
      // The gauge is 1 while a replica's breaker is open: its minimum over the window is 1 only when it stayed open.
      query: `customMetrics
| where name == "${metricNames.breakerState}"
| extend dependency = ${dimension(attributeNames.dependency)}
| summarize open = min(valueMin) by dependency, cloud_RoleInstance
| summarize value = max(open) by dependency`,
      threshold: 0,
      dimensions: ["dependency"],
      severity: severities.breakerOpen,
      windowSize: "PT5M",
    },
  ];
}

/** A workbook (Notebook/1.0) with the billing panels beside the broker's own Service Bus metrics. */
export function billingHealthWorkbook(options: { environment: string; namespaceId?: string }): Record<string, unknown> {
  const chart = (title: string, query: string, visualization = "timechart") => ({
    type: 3,
    content: { version: "KqlItem/1.0", title, query, queryType: 0, resourceType: "microsoft.insights/components", visualization },
    name: title,
  });
  const bySeries = (metric: string, attribute: string, aggregate = "sum(valueSum)") =>
    `customMetrics
| where name == "${metric}"
| summarize value = ${aggregate} by series = ${dimension(attribute)}, bin(timestamp, 5m)
| render timechart`;
  const items: Record<string, unknown>[] = [
    { type: 1, content: { json: `## Billing health (${options.environment})\nFrom the consumers' own metrics: count money here, never from traces (sampled).` }, name: "title" },
    chart("Billing outcomes", bySeries(metricNames.outcomes, attributeNames.outcome)),
    chart("Duplicates prevented, by source", bySeries(metricNames.duplicatesPrevented, attributeNames.source)),
    chart("Duplicates prevented, by guard or Stripe", bySeries(metricNames.duplicatesPrevented, attributeNames.preventedBy)),
    chart("Charged amount (minor units), by currency", bySeries(metricNames.chargedAmount, attributeNames.currency)),
    chart("Dead letters, by reason", bySeries(metricNames.deadLetters, attributeNames.deadLetterReason)),
    chart("Retries scheduled", bySeries(metricNames.retriesScheduled, attributeNames.outcome)),
    chart("Oldest pending billing (s) and pending billings", `customMetrics
| where name in ("${metricNames.oldestPendingAge}", "${metricNames.pendingBillings}")
| summarize value = max(valueMax) by series = name, bin(timestamp, 5m)
| render timechart`),
    chart("Spend utilization per period and currency", `customMetrics
| where name == "${metricNames.spendUtilization}"
| summarize value = max(valueMax) by series = strcat(${dimension(attributeNames.billingPeriod)}, " ", ${dimension(attributeNames.currency)}), bin(timestamp, 15m)
| render timechart`),
    chart("Guard and Stripe mean duration (s)", `customMetrics
| where name in ("${metricNames.guardOperationDuration}", "${metricNames.stripeRequestDuration}")
| summarize value = sum(valueSum) / sum(valueCount) by series = strcat(name, " ", ${dimension(attributeNames.guardOperation)}), bin(timestamp, 5m)
| render timechart`),
    chart("Lock renewal failures", bySeries(metricNames.lockRenewalFailures, "messaging.destination.name")),
  ];
  if (options.namespaceId !== undefined) {
    items.push({
      type: 10,
      content: {
        version: "MetricsItem/2.0",
        size: 0,
        chartType: 2,
        resourceType: "microsoft.servicebus/namespaces",
        resourceIds: [options.namespaceId],
        timeContext: { durationMs: 86_400_000 },
        metrics: ["ActiveMessages", "DeadletteredMessages", "ScheduledMessages", "ThrottledRequests", "ServerErrors"].map((metric) => ({
          namespace: "microsoft.servicebus/namespaces",
          metric: `microsoft.servicebus/namespaces--${metric}`,
          aggregation: metric.endsWith("Messages") ? 3 : 1,
        })),
        title: "Service Bus (the broker's own metrics)",
      },
      name: "broker",
    });
  }
  return { version: "Notebook/1.0", items, isLocked: false, fallbackResourceIds: [] };
}
