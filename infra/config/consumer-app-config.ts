// The app section's consumers, each checked against the queue it consumes and given its replica bounds: the Stripe
// rate they share (the account's limit, one endpoint's limit), the guard database's connections they share, and
// what tuning computes from them. A consumer whose bounds cannot be made safe is refused with the problems named.
// Free of Pulumi imports.
import {
  connectionBudgetPerConsumer,
  DEFAULT_FASTEST_STRIPE_CALL_MS,
  DEFAULT_STRIPE_RATE_UTILIZATION,
  ReplicaBudgetError,
  replicaBounds,
  STRIPE_ENDPOINT_RATE_LIMIT_PER_SECOND,
  STRIPE_LIVE_RATE_LIMIT_PER_SECOND,
  stripeRatePerConsumer,
  type ReplicaBudget,
} from "../../tuning/index.js";
import type { AppConfig, AppInput, ConsumedQueue, ConsumerConfig, DatabaseConfig } from "./service-schemas.js";

const PROJECT = "chargeguard";
export const DEFAULT_MAX_CONCURRENT_CALLS = 8;
/** The nightly audit: every night at 03:00 UTC (Container Apps Jobs read cron in UTC). */
export const DEFAULT_AUDIT_SCHEDULE = "0 3 * * *";

type ConsumerInput = AppInput["consumers"][number];
type StripeLimits = AppConfig["stripe"];

/** What every consumer shares: the Stripe limits, each one's fair share of them and of the database's connections. */
interface SharedBudget {
  stripe: StripeLimits;
  fairRate: number;
  connectionBudget: number;
}

function stripeLimits(appInput: AppInput): StripeLimits {
  return {
    rateLimitPerSecond: appInput.stripe?.rateLimitPerSecond ?? STRIPE_LIVE_RATE_LIMIT_PER_SECOND,
    endpointRateLimitPerSecond: appInput.stripe?.endpointRateLimitPerSecond ?? STRIPE_ENDPOINT_RATE_LIMIT_PER_SECOND,
    utilization: appInput.stripe?.utilization ?? DEFAULT_STRIPE_RATE_UTILIZATION,
    fastestCallMs: appInput.stripe?.fastestCallMs ?? DEFAULT_FASTEST_STRIPE_CALL_MS,
  };
}

function sharedBudget(appInput: AppInput, database: DatabaseConfig, problemsOut: string[]): SharedBudget {
  const stripe = stripeLimits(appInput);
  const count = appInput.consumers.length;
  const fairRate = stripeRatePerConsumer(stripe.rateLimitPerSecond, count, stripe.utilization, stripe.endpointRateLimitPerSecond);
  const connectionBudget = database
    ? connectionBudgetPerConsumer({ maxConnections: database.maxConnections, reservedConnections: database.reservedConnections, consumers: count })
    : 0;
  const explicitRates = appInput.consumers.reduce((sum, consumer) => sum + (consumer.stripeRatePerSecond ?? fairRate), 0);
  if (explicitRates > stripe.rateLimitPerSecond * stripe.utilization + 1e-9) {
    problemsOut.push(
      `${PROJECT}:app.consumers: their stripeRatePerSecond add up to ${explicitRates} calls/s, over ${stripe.utilization} x the account's ${stripe.rateLimitPerSecond}/s limit`,
    );
  }
  return { stripe, fairRate, connectionBudget };
}

/** The consumer's queue, or undefined when it names none; reports a queue consumed twice or also granted by principal id. */
function consumedQueue(consumer: ConsumerInput, label: string, queues: readonly ConsumedQueue[], seen: Set<string>, problemsOut: string[]) {
  const queue = queues.find((q) => q.name === consumer.queue);
  if (!queue) {
    problemsOut.push(`${label}.queue: no queue "${consumer.queue}" in ${PROJECT}:queues`);
    return undefined;
  }
  if (seen.has(queue.name)) problemsOut.push(`${label}.queue: another consumer app already consumes ${queue.name}`);
  seen.add(queue.name);
  if (queue.consumerPrincipalId !== undefined) {
    problemsOut.push(
      `${label}.queue: ${queue.name} also names consumerPrincipalId: the app's own identity is its consumer, remove consumerPrincipalId (two grants of one role collide)`,
    );
  }
  return queue;
}

/** The consumer's replica budget, or undefined when its concurrency is wrong in itself. */
function replicaBudget(consumer: ConsumerInput, label: string, shared: SharedBudget, problemsOut: string[], zoneRedundant: boolean) {
  const { stripe } = shared;
  const endpointCeiling = stripe.endpointRateLimitPerSecond * stripe.utilization;
  if (consumer.stripeRatePerSecond !== undefined && consumer.stripeRatePerSecond > endpointCeiling + 1e-9) {
    problemsOut.push(
      `${label}.stripeRatePerSecond: ${consumer.stripeRatePerSecond} calls/s is over ${stripe.utilization} x one Stripe endpoint's ${stripe.endpointRateLimitPerSecond}/s limit (its charges all hit one endpoint)`,
    );
  }
  const maxConcurrentCalls = consumer.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS;
  const budget: Omit<ReplicaBudget, "deliveryBudgetMs"> = {
    maxConcurrentCalls,
    maxConcurrentStripeCalls: consumer.maxConcurrentStripeCalls ?? maxConcurrentCalls,
    stripeRatePerSecond: consumer.stripeRatePerSecond ?? shared.fairRate,
    fastestStripeCallMs: stripe.fastestCallMs,
    connectionBudget: shared.connectionBudget,
    ...(consumer.minReplicas !== undefined ? { minReplicas: consumer.minReplicas } : {}),
    ...(consumer.maxReplicas !== undefined ? { maxReplicas: consumer.maxReplicas } : {}),
    ...(zoneRedundant ? { zoneRedundant: true } : {}),
  };
  if (budget.maxConcurrentStripeCalls > maxConcurrentCalls) {
    problemsOut.push(`${label}.maxConcurrentStripeCalls: ${budget.maxConcurrentStripeCalls} is more than maxConcurrentCalls ${maxConcurrentCalls}`);
    return undefined;
  }
  return budget;
}

function consumerConfig(
  consumer: ConsumerInput,
  index: number,
  queues: readonly ConsumedQueue[],
  seen: Set<string>,
  shared: SharedBudget,
  problemsOut: string[],
  zoneRedundant: boolean,
): ConsumerConfig | undefined {
  const label = `${PROJECT}:app.consumers[${index}] (${consumer.queue})`;
  const queue = consumedQueue(consumer, label, queues, seen, problemsOut);
  if (!queue) return undefined;
  const ownBudget = replicaBudget(consumer, label, shared, problemsOut, zoneRedundant);
  if (!ownBudget) return undefined;
  // A multi-call flow's queue (tuned with its flow's Stripe calls): the grace period holds every call of a message.
  const calls = queue.tuning.budget.concurrency?.stripeCallsPerMessage;
  const budget = calls !== undefined && calls > 1 ? { ...ownBudget, stripeCallsPerMessage: calls } : ownBudget;
  try {
    const bounds = replicaBounds({ ...budget, deliveryBudgetMs: queue.tuning.deliveryBudgetMs });
    const appName = consumer.appName ?? `${queue.name.toLowerCase().replace(/[^a-z0-9-]/g, "-").slice(0, 23)}-consumer`;
    return {
      queue: queue.name,
      appName,
      identityName: consumer.identityName ?? `id-${appName}`,
      image: consumer.image,
      cpu: consumer.cpu ?? 0.5,
      memory: consumer.memory ?? "1Gi",
      environment: consumer.environment ?? {},
      bootstrap: consumer.bootstrap === true,
      budget,
      bounds,
    };
  } catch (error) {
    if (!(error instanceof ReplicaBudgetError)) throw error;
    problemsOut.push(...error.problems.map((problem) => `${label}: ${problem}`));
    return undefined;
  }
}

/**
 * The app section with each consumer checked against its queue and given its bounds; problems go to `problemsOut`.
 * `zoneRedundant`: the environment is (a stack with a network deploys it so), and each app keeps two replicas or more.
 */
export function consumerAppConfig(
  appInput: AppInput,
  database: DatabaseConfig,
  queues: readonly ConsumedQueue[],
  problemsOut: string[],
  zoneRedundant = false,
): AppConfig {
  const shared = sharedBudget(appInput, database, problemsOut);
  const consumers: ConsumerConfig[] = [];
  const seen = new Set<string>();
  appInput.consumers.forEach((consumer, index) => {
    const built = consumerConfig(consumer, index, queues, seen, shared, problemsOut, zoneRedundant);
    if (built) consumers.push(built);
  });
  return {
    environmentName: appInput.environmentName,
    ...(appInput.registry ? { registry: appInput.registry } : {}),
    stripe: shared.stripe,
    consumers,
    audit: {
      schedule: appInput.audit?.schedule ?? DEFAULT_AUDIT_SCHEDULE,
      image: appInput.audit?.image ?? appInput.consumers[0]?.image ?? "",
    },
  };
}
