// How far a billing consumer may scale out, and how it must be stopped: pure maths from the Stripe rate budget, the
// guard database's connection limit and the queue's delivery budget. Infra deploys these numbers (Container Apps
// scale rule and grace period), the policy pack re-derives them, and the runtime sizes its pool with guardPoolSize.
// PURE: no Pulumi import.
import { ChargeguardError } from "../errors/index.js";
import { concurrencyProblems, describeHold, messageHoldMs } from "./message-hold.js";

/** Stripe's default rate limit in live mode: 100 read and 100 write operations per second (25 in test mode). */
export const STRIPE_LIVE_RATE_LIMIT_PER_SECOND = 100;
export const STRIPE_TEST_RATE_LIMIT_PER_SECOND = 25;
/** Each Stripe endpoint's own default limit (e.g. `POST /v1/payment_intents`), counted against the account's too. */
export const STRIPE_ENDPOINT_RATE_LIMIT_PER_SECOND = 25;
/**
 * Revisions that may run at once: a Single-mode rollout keeps the old revision's replicas until the new one's are
 * ready, so for a while both may run at their maximum and share one Stripe and connection budget.
 */
export const ROLLOUT_REVISIONS = 2;
/** Share of the account's rate limit the billing consumers may use together: the rest is for the dashboard, webhooks and other services. */
export const DEFAULT_STRIPE_RATE_UTILIZATION = 0.8;
/**
 * The fastest a confirmed PaymentIntent call is assumed to return. A replica with N Stripe calls in flight makes at
 * most N x 1000 / this many calls per second: the shorter it is, the more replicas one rate budget must cover.
 */
export const DEFAULT_FASTEST_STRIPE_CALL_MS = 250;
/** Connections Azure Database for PostgreSQL keeps for itself (superuser and monitoring), plus operators and the reconciler. */
export const DEFAULT_RESERVED_CONNECTIONS = 20;
/** Container Apps' ceiling on replicas per revision. */
export const CONTAINER_APPS_MAX_REPLICAS = 1000;
/** Container Apps' ceiling on `terminationGracePeriodSeconds`. */
export const CONTAINER_APPS_MAX_GRACE_SECONDS = 600;

/**
 * The grace period between SIGTERM and SIGKILL that lets a message in flight finish: how long a message may be held
 * (messageHoldMs: its delivery, plus a wait for a Stripe slot when pipelined), rounded up to the whole seconds
 * Container Apps' terminationGracePeriodSeconds takes. The proving ground's scale-in uses it too.
 */
export function gracePeriodSeconds(messageHoldMs: number): number {
  return Math.ceil(messageHoldMs / 1000);
}

/** Connections one consumer's guard pool opens: one per message in flight plus one for batched completions, at least 10. */
export function guardPoolSize(maxConcurrentCalls: number): number {
  return Math.max(10, maxConcurrentCalls + 1);
}

/**
 * The Stripe budget's own pool per replica (runtime/resilience/fleet-budget.ts): two, so the slow start's peek and a
 * first 429's mark never queue behind a sync.
 */
export const FLEET_BUDGET_CONNECTIONS = 2;
/** The database breaker's probe: one fresh connection at a time, while the breaker is open. */
export const BREAKER_PROBE_CONNECTIONS = 1;

/** Every connection one replica may hold at once: its guard pool, the Stripe budget's pool and the breaker's probe. */
export function replicaConnections(maxConcurrentCalls: number): number {
  return guardPoolSize(maxConcurrentCalls) + FLEET_BUDGET_CONNECTIONS + BREAKER_PROBE_CONNECTIONS;
}

export interface ReplicaBudget {
  /** Messages in flight per replica (the receiver's maxConcurrentCalls). */
  maxConcurrentCalls: number;
  /** Stripe calls in flight per replica. */
  maxConcurrentStripeCalls: number;
  /** Stripe operations per second this consumer may use (its share of the account's limit). */
  stripeRatePerSecond: number;
  /** See DEFAULT_FASTEST_STRIPE_CALL_MS. */
  fastestStripeCallMs?: number;
  /** Database connections this consumer may hold across all its replicas. */
  connectionBudget: number;
  /** At least 1: a replica count of zero would scale in while a charge is in flight and cold-start the next one. */
  minReplicas?: number;
  /** A ceiling of your own; it must not exceed the computed one. */
  maxReplicas?: number;
  /** The queue's delivery budget (tuneQueue(...).deliveryBudgetMs). */
  deliveryBudgetMs: number;
  /** Stripe calls per message (the flow's `calls`), default 1. */
  stripeCallsPerMessage?: number;
}

export interface ReplicaBounds {
  minReplicas: number;
  maxReplicas: number;
  /** The largest count the Stripe rate budget allows. */
  maxReplicasByStripe: number;
  /** The largest count the connection budget allows. */
  maxReplicasByConnections: number;
  /** Stripe calls per second one replica can make at most. */
  stripeCallsPerSecondPerReplica: number;
  poolSizePerReplica: number;
  /** Every connection a replica may hold (replicaConnections): what the connection budget is divided by. */
  connectionsPerReplica: number;
  /** KEDA's target: messages per replica, the consumer's messages in flight. */
  messageCount: number;
  /** How long a replica may hold one message (messageHoldMs). */
  messageHoldMs: number;
  /** SIGTERM to SIGKILL: the whole hold of a message, in whole seconds, so a replica drains its in-flight charges. */
  terminationGracePeriodSeconds: number;
  explanation: { maxReplicas: string; terminationGracePeriodSeconds: string; messageCount: string; minReplicas: string };
}

export class ReplicaBudgetError extends ChargeguardError {
  override readonly name = "ReplicaBudgetError";
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
  }
}

const positiveWhole = (value: number) => Number.isInteger(value) && value >= 1;

/** Computes replica bounds, grace period and KEDA target, or throws a ReplicaBudgetError naming each field to change. */
export function replicaBounds(budget: ReplicaBudget): ReplicaBounds {
  const problems: string[] = [];
  const fastest = budget.fastestStripeCallMs ?? DEFAULT_FASTEST_STRIPE_CALL_MS;
  const minReplicas = budget.minReplicas ?? 1;
  for (const [field, value] of [
    ["maxConcurrentCalls", budget.maxConcurrentCalls],
    ["maxConcurrentStripeCalls", budget.maxConcurrentStripeCalls],
    ["connectionBudget", budget.connectionBudget],
    ["fastestStripeCallMs", fastest],
  ] as const) {
    if (!positiveWhole(value)) problems.push(`${field} is ${JSON.stringify(value)}: expected a whole number >= 1`);
  }
  if (problems.length === 0) problems.push(...concurrencyProblems(budget));
  if (!(budget.stripeRatePerSecond > 0)) problems.push(`stripeRatePerSecond is ${JSON.stringify(budget.stripeRatePerSecond)}: expected a rate above 0`);
  if (!Number.isInteger(minReplicas) || minReplicas < 1) {
    problems.push(`minReplicas is ${JSON.stringify(minReplicas)}: keep at least 1 replica, or a scale-in to zero cuts in-flight charges and the next event waits for a cold start`);
  }
  if (problems.length > 0) throw new ReplicaBudgetError(problems);

  const pool = guardPoolSize(budget.maxConcurrentCalls);
  const connections = replicaConnections(budget.maxConcurrentCalls);
  const perReplicaRate = (budget.maxConcurrentStripeCalls * 1000) / fastest;
  // Both revisions of a rollout may run at their maximum at once: each gets half of either budget.
  const byStripe = Math.floor(budget.stripeRatePerSecond / perReplicaRate / ROLLOUT_REVISIONS);
  const byConnections = Math.floor(budget.connectionBudget / connections / ROLLOUT_REVISIONS);
  const computed = Math.min(byStripe, byConnections, CONTAINER_APPS_MAX_REPLICAS);
  const limiting = byStripe <= byConnections ? "Stripe rate" : "connection";
  const heldMs = messageHoldMs(budget.deliveryBudgetMs, budget);
  const grace = gracePeriodSeconds(heldMs);

  if (computed < minReplicas) {
    problems.push(
      byStripe < minReplicas
        ? `maxConcurrentStripeCalls ${budget.maxConcurrentStripeCalls}: one replica makes up to ${perReplicaRate} Stripe calls/s, and ${minReplicas} replica(s) in each of the ${ROLLOUT_REVISIONS} revisions a rollout runs side by side need more than the ${budget.stripeRatePerSecond}/s budget: lower maxConcurrentStripeCalls or raise the Stripe rate budget`
        : `connectionBudget ${budget.connectionBudget}: ${minReplicas} replica(s) x ${connections} connections (a guard pool of ${pool}, the Stripe budget's and the breaker probe's) in each of the ${ROLLOUT_REVISIONS} revisions a rollout runs side by side do not fit: lower maxConcurrentCalls or raise the database's maxConnections`,
    );
  }
  if (budget.maxReplicas !== undefined && (!Number.isInteger(budget.maxReplicas) || budget.maxReplicas > computed || budget.maxReplicas < minReplicas)) {
    problems.push(
      `maxReplicas ${JSON.stringify(budget.maxReplicas)} is outside ${minReplicas}..${computed}: ${budget.maxReplicas > computed ? `the ${limiting} budget allows at most ${computed}` : "it must be a whole number no lower than minReplicas"}`,
    );
  }
  if (grace > CONTAINER_APPS_MAX_GRACE_SECONDS) {
    problems.push(
      `a message may be held ${describeHold(budget.deliveryBudgetMs, budget)}, over Container Apps' ${CONTAINER_APPS_MAX_GRACE_SECONDS} s termination grace period: a scale-in would SIGKILL a charge in flight; lower the queue's Stripe timeout, retries or 3-D Secure wait, or give every message in flight its own Stripe slot (maxConcurrentStripeCalls = maxConcurrentCalls)`,
    );
  }
  if (problems.length > 0) throw new ReplicaBudgetError(problems);

  const maxReplicas = budget.maxReplicas ?? computed;
  return {
    minReplicas,
    maxReplicas,
    maxReplicasByStripe: byStripe,
    maxReplicasByConnections: byConnections,
    stripeCallsPerSecondPerReplica: perReplicaRate,
    poolSizePerReplica: pool,
    connectionsPerReplica: connections,
    messageCount: budget.maxConcurrentCalls,
    messageHoldMs: heldMs,
    terminationGracePeriodSeconds: grace,
    explanation: {
      maxReplicas:
        `${maxReplicas}${budget.maxReplicas !== undefined ? ` (set; computed ceiling ${computed})` : ""}: ` +
        `Stripe allows ${byStripe} (${budget.stripeRatePerSecond} calls/s budget / ${perReplicaRate} calls/s per replica = ${budget.maxConcurrentStripeCalls} in flight x 1000 / ${fastest} ms fastest call, / ${ROLLOUT_REVISIONS} revisions side by side in a rollout), ` +
        `the database ${byConnections} (${budget.connectionBudget} connections / ${connections} per replica: a guard pool of ${pool}, ${FLEET_BUDGET_CONNECTIONS} for the Stripe budget, ${BREAKER_PROBE_CONNECTIONS} for the breaker probe / ${ROLLOUT_REVISIONS} revisions); the ${limiting} budget binds.`,
      terminationGracePeriodSeconds: `${grace} s: the longest hold of a message (${describeHold(budget.deliveryBudgetMs, budget)}), so a replica told to stop (SIGTERM) finishes its in-flight charges before SIGKILL.`,
      messageCount: `${budget.maxConcurrentCalls}: KEDA adds a replica per ${budget.maxConcurrentCalls} waiting messages, one replica's messages in flight.`,
      minReplicas: `${minReplicas}: never zero, so a scale-in cannot leave the queue without a warm consumer.`,
    },
  };
}

export interface ConnectionShare {
  /** The server's max_connections. */
  maxConnections: number;
  reservedConnections?: number;
  /** How many consumer apps share the server. */
  consumers: number;
}

/** Each consumer's equal share of the connections the server leaves to applications. */
export function connectionBudgetPerConsumer(share: ConnectionShare): number {
  const usable = share.maxConnections - (share.reservedConnections ?? DEFAULT_RESERVED_CONNECTIONS);
  return Math.max(0, Math.floor(usable / Math.max(1, share.consumers)));
}

/**
 * Each consumer's Stripe budget in requests per second, fleet-wide (all its replicas together): its equal share of the
 * account's limit, and never more than one endpoint's limit (its charges all hit one endpoint, e.g. POST
 * /v1/payment_intents), both after the utilization headroom. The app's STRIPE_REQUESTS_PER_SECOND and its replica
 * bounds both come from this.
 */
export function stripeRatePerConsumer(
  rateLimitPerSecond: number,
  consumers: number,
  utilization = DEFAULT_STRIPE_RATE_UTILIZATION,
  endpointRateLimitPerSecond = STRIPE_ENDPOINT_RATE_LIMIT_PER_SECOND,
): number {
  const rate = Math.min((rateLimitPerSecond * utilization) / Math.max(1, consumers), endpointRateLimitPerSecond * utilization);
  // Rounded down to hundredths: the app's environment carries it as text, and must never exceed the budget.
  return Math.floor(rate * 100 + 1e-9) / 100;
}
