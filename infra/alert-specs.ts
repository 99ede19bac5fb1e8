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
}

/** Severities when the stack sets none: production-grade (Azure Monitor Baseline Alerts). Dev stacks relax them. */
export const defaultSeverities: AlertSeverities = { deadLettered: 1, throttled: 1, serverErrors: 1, abandoned: 2, backlog: 2 };
export const DEFAULT_BACKLOG_THRESHOLD = 1000;

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

export function queueAlertSpecs(queueName: string, severities: AlertSeverities, backlogThreshold: number): QueueAlertSpec[] {
  return [
    {
      key: "deadlettered",
      metricName: DEAD_LETTER_METRIC,
      timeAggregation: "Maximum",
      threshold: 0,
      severity: severities.deadLettered,
      windowSize: "PT5M",
      description: `A billing event on ${queueName} was dead-lettered: a customer may not have been charged. Inspect it with chargeguard dlq.`,
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
  ];
}
