// One queue in the plan's summary: what it is tuned for (throughput per replica and at max replicas), its lock
// against the Stripe latency budget, its deliveries, its consumer app's replicas, who may use it (built-in role
// names) and its alerts in words. Every figure carries its unit; the derivations are in --details.
import { parseIsoDuration } from "../../tuning/index.js";
import type { QueueConfig, StackConfig } from "../config/index.js";
import { grantsByPrincipal, type Grant } from "./access-words.js";
import { alertsBySeverity, watchesQueue } from "./alert-words.js";
import type { MockedResource } from "./azure-mocks.js";
import { labelled } from "./plan-layout.js";
import { count, isoSpan, rate, seconds } from "./plan-units.js";
import { queueThroughput } from "./queue-throughput.js";
import type { PlannedQueue } from "./run-plan.js";

export interface QueueView {
  planned: PlannedQueue;
  config: QueueConfig;
  /** The Service Bus queue the program registered (its inputs are what Azure gets). */
  resource: MockedResource | undefined;
  stack: StackConfig;
  alerts: MockedResource[];
  sasRules: MockedResource[];
  grants: Grant[];
}

function throughputLines(view: QueueView): string[] {
  const consumer = view.stack.bootstrap ? undefined : view.stack.app?.consumers.find((c) => c.queue === view.planned.name);
  if (!consumer) {
    return labelled("throughput", [view.stack.bootstrap ? "no consumer app yet (bootstrap phase)" : "not computed: no consumer app of this stack reads this queue"]);
  }
  const t = queueThroughput(consumer, view.planned.stripeCallsPerMessage, view.config.tuning.deliveryBudgetMs);
  return [
    ...labelled("throughput", [
      `${rate(t.perReplicaPerSecond, "messages")} per replica,`,
      `${rate(t.atMaxReplicasPerSecond, "messages")} at max replicas (${t.maxReplicas});`,
      `worst case ${rate(t.slowestPerReplicaPerSecond, "messages")} per replica`,
    ], ""),
    ...labelled("replicas", [
      `${t.maxReplicas === consumer.bounds.minReplicas ? t.maxReplicas : `${consumer.bounds.minReplicas} to ${t.maxReplicas}`} of app ${consumer.appName}`,
      `${count(t.messagesInFlight, "message")} in flight and ${count(t.stripeSlots, "Stripe slot")} each`,
      `grace period ${consumer.bounds.terminationGracePeriodSeconds} s`,
    ]),
  ];
}

/** How long a message may be held, and what it is made of. */
function holdWords(config: QueueConfig): string {
  const { deliveryBudgetMs, messageHoldMs, budget } = config.tuning;
  const calls = budget.concurrency?.stripeCallsPerMessage ?? 1;
  const parts = [`delivery budget ${seconds(deliveryBudgetMs)}`];
  if (calls > 1) parts.push(`x ${calls} Stripe calls`);
  if (messageHoldMs > calls * deliveryBudgetMs) parts.push("x 2 for a Stripe slot");
  return `a ${seconds(messageHoldMs)} hold (${parts.join(" ")})`;
}

function lockLines(view: QueueView): string[] {
  const { planned, config } = view;
  const iso = String(view.resource?.inputs.lockDuration ?? planned.lockDuration);
  const lockMs = parseIsoDuration(iso);
  const renewalMs = planned.consumer.maxAutoLockRenewalDurationInMs;
  const stripe = config.budget.stripe;
  const extraMs = config.tuning.deliveryBudgetMs - planned.worstCaseStripeMs;
  return [
    ...labelled("lock", [
      renewalMs === 0 ? `${seconds(lockMs)}, no renewal: covers ${holdWords(config)}` : `${seconds(lockMs)}, renewed for up to ${seconds(renewalMs)}: covers ${holdWords(config)}`,
    ]),
    ...labelled("Stripe", [
      `${seconds(planned.worstCaseStripeMs)} worst case per call (${count(stripe.maxNetworkRetries + 1, "attempt")} x ${seconds(stripe.timeoutMs)}${stripe.threeDsP99Ms ? `, ${seconds(stripe.threeDsP99Ms)} 3-D Secure wait` : ""}),`,
      `delivery budget ${seconds(config.tuning.deliveryBudgetMs)} (+ ${seconds(extraMs)} processing and margin)`,
    ], ""),
    ...labelled("deliveries", [
      `${planned.maxDeliveryCount} at most, then dead-lettered`,
      `time to live ${isoSpan(view.resource?.inputs.defaultMessageTimeToLive ?? config.tuning.defaultMessageTimeToLive)}`,
    ]),
  ];
}

function accessLines(view: QueueView): string[] {
  const queueId = view.resource?.id;
  const onQueue = view.grants.filter((grant) => grant.scopeId === queueId);
  const rules = [...view.sasRules]
    .filter((rule) => rule.inputs.queueName === view.planned.name)
    .sort((a, b) => String(a.inputs.authorizationRuleName).localeCompare(String(b.inputs.authorizationRuleName)))
    .map((rule) => `SAS rule ${String(rule.inputs.authorizationRuleName)}: ${(rule.inputs.rights as string[]).join(" + ")}`);
  const lines = [...grantsByPrincipal(onQueue), ...rules];
  if (lines.length === 0) return labelled("access", ["nobody: no role assignment or SAS rule on this queue"]);
  // A principal's roles wrap between role names, never inside one.
  return lines.flatMap((line, index) => labelled(index === 0 ? "access" : "", line.split(" + "), " +"));
}

export function queueSummaryLines(view: QueueView): string[] {
  const { planned } = view;
  const alerts = view.alerts.filter((alert) => watchesQueue(alert, planned.name));
  return [
    `Queue ${planned.name}: ${planned.flow} flow, ${count(planned.stripeCallsPerMessage, "Stripe call")} per message`,
    ...throughputLines(view),
    ...lockLines(view),
    ...accessLines(view),
    ...labelled(`alerts (${alerts.length})`, alerts.length > 0 ? alertsBySeverity(alerts) : ["none"], ""),
  ];
}
