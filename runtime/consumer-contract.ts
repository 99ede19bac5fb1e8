// The contract every billing consumer in this repository follows (the scaffolded one, the examples, and the
// proving ground's contenders), so one harness can start any of them, crash them at a step boundary, and count
// what reached Stripe. A consumer module exports `startConsumer: StartConsumer`.
import type { PGlite } from "@electric-sql/pglite";
import type { RetryPolicy } from "./settlement-policy.js";

/** Milliseconds since the epoch. One clock drives Stripe's key window (sandbox), leases and the reconciler. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The business event on the queue (JSON body). Anything else is dead-lettered with a reason. */
export interface UsageEvent {
  customerId: string;
  stripeCustomerId: string;
  paymentMethodId: string;
  /** `YYYY-MM` */
  billingPeriod: string;
  /** integer, smallest currency unit, > 0 */
  amountCents: number;
  /** ISO 4217, lower case */
  currency: string;
}

/** The step boundaries of the billing flow, in order. The proving ground crashes a replica at each. */
export const consumerSteps = ["afterClaim", "afterStripe", "afterRecord", "beforeComplete"] as const;
export type ConsumerStep = (typeof consumerSteps)[number];

/**
 * Called at each step boundary with the parsed event. A hook that returns a promise that never settles
 * simulates a process killed at that instant: the harness then closes the replica's connections and starts
 * a fresh replica; nothing after the boundary may run.
 */
export type StepHook = (step: ConsumerStep, event: UsageEvent) => void | Promise<void>;

export interface StripeSettings {
  apiKey: string;
  /** e.g. "http://127.0.0.1:12111" for the sandbox; absent: api.stripe.com */
  apiBase?: string;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}

export interface ConsumerContext {
  serviceBus: { connectionString: string; queueName: string };
  stripe: StripeSettings;
  /** PostgreSQL URL; absent: embedded PGlite (`pglite`, or a data directory of the consumer's choosing). */
  databaseUrl?: string;
  /** An open embedded database shared by the replicas of one contender (in-process fleets). */
  pglite?: PGlite;
  clock?: Clock;
  /** Per billing period spend cap in cents; absent: no cap. */
  periodCapCents?: number;
  /** Receiver settings; absent: the consumer's own (from the queue's tuning). */
  maxAutoLockRenewalDurationInMs?: number;
  maxConcurrentCalls?: number;
  /** Backoff of the retries scheduled after an unknown outcome; absent: the consumer's own (settlement-policy.ts). */
  retryPolicy?: Partial<RetryPolicy>;
  hook?: StepHook;
  log?: (line: string) => void;
}

export interface RunningConsumer {
  /** Stops receiving, lets in-flight work finish or lapse, closes connections. */
  close(): Promise<void>;
}

export type StartConsumer = (context: ConsumerContext) => Promise<RunningConsumer>;
