// The per-queue metric alerts a billing queue gets. Pure data: the component turns each into a
// monitor.MetricAlert scoped to the namespace with the dimension EntityName = the queue's name.
// Aggregations follow Azure's metric definitions: message counts take Average/Minimum/Maximum, request counts Total.

/** Azure Monitor severities, 0 (critical) to 4 (verbose), per alert. */
export interface AlertSeverities {
  deadLettered: number;
  throttled: number;
  serverErrors: number;
  abandoned: number;
  backlog: number;
  /** UserErrors: lost locks (MessageLockLost) and refused operations. */
  userErrors: number;
  /** ScheduledMessages above the retry-backlog threshold: unknown Stripe outcomes waiting for their retry. */
  retryBacklog: number;
}

/** Severities when the stack sets none: production-grade (Azure Monitor Baseline Alerts). Dev stacks relax them. */
export const defaultSeverities: AlertSeverities = {
  deadLettered: 1,
  throttled: 1,
  serverErrors: 1,
  abandoned: 2,
  backlog: 2,
  userErrors: 2,
  retryBacklog: 2,
};
export const DEFAULT_BACKLOG_THRESHOLD = 1000;
/** Scheduled retries waiting on one queue before someone should look at Stripe (an outage leaves many). */
export const DEFAULT_RETRY_BACKLOG_THRESHOLD = 100;

export interface QueueAlertSpec {
  /** Suffix of the alert's name. */
  key: string;
  metricName: string;
  timeAggregation: "Maximum" | "Average" | "Total";
  threshold: number;
  severity: number;
  windowSize: string;
  description: string;
}

export const METRIC_NAMESPACE = "Microsoft.ServiceBus/namespaces";
export const DEAD_LETTER_METRIC = "DeadletteredMessages";

export function queueAlertSpecs(
  queueName: string,
  severities: AlertSeverities,
  backlogThreshold: number,
  retryBacklogThreshold = DEFAULT_RETRY_BACKLOG_THRESHOLD,
): QueueAlertSpec[] {
  return [
    {
      // A gauge: it stays above 0 while the dead-letter queue holds anything, so this alert says *which* queue holds
      // dead letters; the namespace's new-dead-letters log alert (newDeadLettersQuery) pages on each new one.
      key: "deadlettered",
      metricName: DEAD_LETTER_METRIC,
      timeAggregation: "Maximum",
      threshold: 0,
      severity: severities.deadLettered,
      windowSize: "PT5M",
      description: `The dead-letter queue of ${queueName} holds billing events: a customer may not have been charged. Inspect them with chargeguard dlq.`,
    },
    {
      key: "throttled",
      metricName: "ThrottledRequests",
      timeAggregation: "Total",
      threshold: 0,
      severity: severities.throttled,
      windowSize: "PT5M",
      description: `Service Bus throttled requests on ${queueName}: throttled lock renewals let locks lapse mid-charge.`,
    },
    {
      key: "server-errors",
      metricName: "ServerErrors",
      timeAggregation: "Total",
      threshold: 0,
      severity: severities.serverErrors,
      windowSize: "PT5M",
      description: `Service Bus returned server errors on ${queueName}: settlements may not have landed.`,
    },
    {
      key: "abandoned",
      metricName: "AbandonMessage",
      timeAggregation: "Total",
      threshold: 0,
      severity: severities.abandoned,
      windowSize: "PT5M",
      description: `A consumer abandoned a billing event on ${queueName}: abandon redelivers at once with no backoff; consumers should reschedule instead.`,
    },
    {
      key: "backlog",
      metricName: "ActiveMessages",
      timeAggregation: "Average",
      threshold: backlogThreshold,
      severity: severities.backlog,
      windowSize: "PT15M",
      description: `More than ${backlogThreshold} billing events wait on ${queueName}: consumers are down or too slow.`,
    },
    {
      key: "user-errors",
      metricName: "UserErrors",
      timeAggregation: "Total",
      threshold: 0,
      severity: severities.userErrors,
      windowSize: "PT5M",
      description: `Service Bus counted user errors on ${queueName} (lost message locks among them): a delivery outlived its lock, or an operation was refused.`,
    },
    {
      key: "retry-backlog",
      metricName: "ScheduledMessages",
      timeAggregation: "Average",
      threshold: retryBacklogThreshold,
      severity: severities.retryBacklog,
      windowSize: "PT15M",
      description: `More than ${retryBacklogThreshold} scheduled retries wait on ${queueName}: Stripe outcomes keep coming back unknown.`,
    },
  ];
}

/**
 * KQL for the namespace's new-dead-letters log alert: the rise of the namespace's DeadletteredMessages gauge from
 * one minute to the next, summed over the window. Unlike `Max > 0` on the gauge (fired once, then silent while the
 * dead-letter queue stays non-empty), each new dead letter raises it again. Reads AzureMetrics, which the
 * namespace's diagnostic setting fills (AllMetrics); those rows carry no EntityName, hence namespace-wide.
 */
export function newDeadLettersQuery(namespaceId: string): string {
  return [
    "AzureMetrics",
    `| where ResourceId =~ "${namespaceId}" and MetricName == "${DEAD_LETTER_METRIC}"`,
    "| summarize deadLettered = max(Maximum) by bin(TimeGenerated, 1m)",
    "| sort by TimeGenerated asc",
    "| extend newDeadLetters = deadLettered - prev(deadLettered)",
    "| where newDeadLetters > 0",
    "| summarize newDeadLetters = sum(newDeadLetters)",
  ].join("\n");
}
export const NEW_DEAD_LETTERS_COLUMN = "newDeadLetters";
