// What each queue's consumer app is tuned to drain, in messages: the figure a team asks first. Derived from the same
// numbers the replica bounds come from (tuning/replica-bounds.ts), so it is what the stack deploys, not an estimate
// of Stripe's speed: a replica makes at most `Stripe slots x 1000 / fastest call` Stripe calls per second, and a
// message costs its flow's Stripe calls. The slowest figure is every call at the queue's worst case (its delivery
// budget), the rate a backlog drains at while Stripe is at its slowest.
import type { ConsumerConfig } from "../config/index.js";

export interface QueueThroughput {
  /** Stripe calls one message makes (its flow's). */
  stripeCallsPerMessage: number;
  /** Stripe calls in flight per replica. */
  stripeSlots: number;
  /** Messages one replica holds at once. */
  messagesInFlight: number;
  fastestCallMs: number;
  /** Messages/s one replica drains when every Stripe call takes the fastest assumed time. */
  perReplicaPerSecond: number;
  maxReplicas: number;
  /** Messages/s at max replicas. */
  atMaxReplicasPerSecond: number;
  /** The app's fleet-wide Stripe budget (its STRIPE_REQUESTS_PER_SECOND), in requests/s. */
  stripeBudgetPerSecond: number;
  /** Messages/s one replica drains when every delivery takes its whole budget (Stripe at its worst case). */
  slowestPerReplicaPerSecond: number;
}

/** The queue's throughput under its consumer app's bounds, given the queue's delivery budget. */
export function queueThroughput(consumer: Pick<ConsumerConfig, "budget" | "bounds">, stripeCallsPerMessage: number, deliveryBudgetMs: number): QueueThroughput {
  const { budget, bounds } = consumer;
  const perReplicaPerSecond = bounds.stripeCallsPerSecondPerReplica / stripeCallsPerMessage;
  return {
    stripeCallsPerMessage,
    stripeSlots: budget.maxConcurrentStripeCalls,
    messagesInFlight: budget.maxConcurrentCalls,
    fastestCallMs: budget.fastestStripeCallMs ?? 1000 / (bounds.stripeCallsPerSecondPerReplica / budget.maxConcurrentStripeCalls),
    perReplicaPerSecond,
    maxReplicas: bounds.maxReplicas,
    atMaxReplicasPerSecond: perReplicaPerSecond * bounds.maxReplicas,
    stripeBudgetPerSecond: budget.stripeRatePerSecond,
    // Each slot finishes one call per delivery budget at worst; a message needs all of its calls.
    slowestPerReplicaPerSecond: budget.maxConcurrentStripeCalls / stripeCallsPerMessage / (deliveryBudgetMs / 1000),
  };
}

export interface StackThroughput {
  /** Queues with a consumer app in this stack. */
  queues: number;
  /** Messages/s every queue drains together with every app at max replicas. */
  atMaxReplicasPerSecond: number;
  /** The Stripe requests/s that takes: what the stack's apps ask of the account's billing budget. */
  stripeRequestsPerSecond: number;
}

/** The stack's throughput: its queues' figures at max replicas added up, with the Stripe requests they cost. */
export function stackThroughput(queues: readonly QueueThroughput[]): StackThroughput {
  return {
    queues: queues.length,
    atMaxReplicasPerSecond: queues.reduce((sum, q) => sum + q.atMaxReplicasPerSecond, 0),
    stripeRequestsPerSecond: queues.reduce((sum, q) => sum + q.atMaxReplicasPerSecond * q.stripeCallsPerMessage, 0),
  };
}
