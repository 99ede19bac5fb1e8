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
  /** How often Azure evaluates it (default PT1M). */
  evaluationFrequency?: string;
  /**
   * Default true (stateful: fires once, resolves when the condition clears). False: stateless, it notifies at every
   * evaluation while the condition holds (Azure Monitor: stateless alerts fire each time the condition is met).
   */
  autoMitigate?: boolean;
  description: string;
}

export const METRIC_NAMESPACE = "Microsoft.ServiceBus/namespaces";
export const DEAD_LETTER_METRIC = "DeadletteredMessages";

/** The dead-letter pair: which queue holds dead letters (stateful), and a page that repeats while any waits (stateless). */
function deadLetterSpecs(queueName: string, severity: number): QueueAlertSpec[] {
  return [
    {
      // A gauge: it stays above 0 while the dead-letter queue holds anything. Stateful, it fires once and resolves when
      // the queue is clean; the stateless dead-letters-waiting alert below keeps paging meanwhile.
      key: "deadlettered",
      metricName: DEAD_LETTER_METRIC,
      timeAggregation: "Maximum",
      threshold: 0,
      severity,
      windowSize: "PT5M",
      description: `The dead-letter queue of ${queueName} holds billing events: a customer may not have been charged. Inspect them with chargeguard dlq.`,
    },
    {
      // The same gauge, stateless: it notifies every evaluation (15 to 30 min apart) while any dead letter waits, so a
      // second incident during the first is never silent (a stateful alert stays fired and says nothing new). A
      // metric alert: diagnostic settings never export DeadletteredMessages (DS Export: No), so no log query sees it.
      key: "dead-letters-waiting",
      metricName: DEAD_LETTER_METRIC,
      timeAggregation: "Maximum",
      threshold: 0,
      severity,
      windowSize: "PT15M",
      evaluationFrequency: "PT15M",
      autoMitigate: false,
      description: `Billing events still wait in the dead-letter queue of ${queueName} (repeats until it is empty): a customer may not have been charged. Inspect them with chargeguard dlq peek, then resubmit or discard.`,
    },
  ];
}

export function queueAlertSpecs(
  queueName: string,
  severities: AlertSeverities,
  backlogThreshold: number,
  retryBacklogThreshold = DEFAULT_RETRY_BACKLOG_THRESHOLD,
): QueueAlertSpec[] {
  return [
    ...deadLetterSpecs(queueName, severities.deadLettered),
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
