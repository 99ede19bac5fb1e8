// The consumer's settings, resolved and checked before anything connects: concurrency, the Stripe client's timeout
// and retries, the delivery budget they imply, the lock renewal that must cover it, and the retry policy. Settings
// that do not agree are a ConfigurationError at start, never a failure per message.
import {
  concurrencyProblems,
  consumerFitProblems,
  DEFAULT_STRIPE_BUDGET,
  deliveryBudgetMs,
  messageHoldMs,
  type ConsumerConcurrency,
  type LatencyBudget,
} from "../../tuning/index.js";
import type { BillingConsumerOptions } from "./consumer-options.js";
import { errorMessage } from "../core/describe-error.js";
import { ConfigurationError } from "../core/errors.js";
import type { FlowAdapter } from "../flows/flow-adapter.js";
import { paymentIntentFlow } from "../flows/payment-intent-flow.js";
import { defaultRetryPolicy, type RetryPolicy } from "../handler/settlement-policy.js";
import { stableKey } from "../core/stable-key.js";
import { processEnvironment, runtimeEnvironment, type Environment } from "../core/environment.js";

export interface ResolvedConsumerSettings {
  maxConcurrentCalls: number;
  stripeSlots: number;
  /** Fewer Stripe slots than messages in flight: the others record and settle while the slots call Stripe. */
  pipelined: boolean;
  stripeTimeoutMs: number;
  stripeRetries: number;
  flow: FlowAdapter<unknown>;
  /** How long a message may be held: its delivery budget, plus a wait for a Stripe slot when pipelined. */
  heldMs: number;
  maxAutoLockRenewalDurationInMs: number;
  retryPolicy: RetryPolicy;
  /** The fleet's Stripe ceiling, requests per second; undefined: none (adapt to 429s). */
  stripeRequestsPerSecond: number | undefined;
}

/** Only settings are read here, whatever the event and request. */
export type AnyConsumerOptions = BillingConsumerOptions<unknown, unknown>;

export function consumerSettings(options: AnyConsumerOptions): ResolvedConsumerSettings {
  const { maxConcurrentCalls, stripeSlots } = concurrency(options);
  const pipelined = stripeSlots < maxConcurrentCalls;
  const stripeTimeoutMs = options.stripe.timeoutMs ?? options.tuning?.consumer.stripeTimeoutMs ?? DEFAULT_STRIPE_BUDGET.timeoutMs;
  const stripeRetries = options.stripe.maxNetworkRetries ?? options.tuning?.consumer.stripeMaxNetworkRetries ?? DEFAULT_STRIPE_BUDGET.maxNetworkRetries;
  const flow = (options.flow ?? paymentIntentFlow) as FlowAdapter<unknown>;
  // The queue's budget (processing, margin, 3-D Secure wait; the concurrency it was tuned for) with the Stripe client
  // this consumer really runs; this consumer's own concurrency is `shape`.
  const queueBudget = options.tuning?.budget ?? { stripe: DEFAULT_STRIPE_BUDGET };
  const budget: LatencyBudget = { ...queueBudget, stripe: { ...queueBudget.stripe, timeoutMs: stripeTimeoutMs, maxNetworkRetries: stripeRetries } };
  const shape: ConsumerConcurrency = { maxConcurrentCalls, maxConcurrentStripeCalls: stripeSlots, stripeCallsPerMessage: flow.calls };
  // tuning's one formula: a delivery budget per Stripe call the flow makes, doubled when a message may wait for a slot.
  const heldMs = messageHoldMs(deliveryBudgetMs(budget), shape);
  // Without a tuning we cannot know the queue's lock, so renew for the whole hold, and at least twice one delivery
  // budget per call (what tuneQueue asks for whenever one lock does not cover a delivery).
  const maxAutoLockRenewalDurationInMs =
    options.maxAutoLockRenewalDurationInMs ??
    options.tuning?.consumer.maxAutoLockRenewalDurationInMs ??
    Math.ceil(Math.max(heldMs, 2 * flow.calls * deliveryBudgetMs(budget)) / 1000) * 1000;
  const resolved = { maxConcurrentCalls, stripeSlots, pipelined, stripeTimeoutMs, stripeRetries, flow, heldMs, maxAutoLockRenewalDurationInMs };
  checkLockCoverage(options, budget, shape, maxAutoLockRenewalDurationInMs);
  const settings: ResolvedConsumerSettings = { ...resolved, retryPolicy: retryPolicyOf(options), stripeRequestsPerSecond: stripeCeiling(options) };
  checkScope(options.scope ?? "billing");
  if (options.keyProvider && (options.expectedPeriodTotalCents ?? options.periodCapCents) === undefined) {
    throw new ConfigurationError("a vault key provider needs expectedPeriodTotalCents (or periodCapCents) to size each period's key cap");
  }
  return settings;
}

function concurrency(options: AnyConsumerOptions): { maxConcurrentCalls: number; stripeSlots: number } {
  const maxConcurrentCalls = options.maxConcurrentCalls ?? 1;
  const stripeSlots = options.maxConcurrentStripeCalls ?? maxConcurrentCalls;
  const problems = concurrencyProblems({ maxConcurrentCalls, maxConcurrentStripeCalls: stripeSlots });
  if (problems.length > 0) throw new ConfigurationError(problems.join("; "));
  return { maxConcurrentCalls, stripeSlots };
}

/**
 * With the queue's lock known (a tuning), the renewal deadline must cover a delivery and a wait for a Stripe slot:
 * tuning's consumerFitProblems, the check a generated consumer's `--print-settings` reports and infra tunes for.
 */
function checkLockCoverage(options: AnyConsumerOptions, budget: LatencyBudget, shape: ConsumerConcurrency, maxAutoLockRenewalDurationInMs: number): void {
  const lockDurationMs = options.tuning?.lockDurationMs;
  if (lockDurationMs === undefined) return;
  const problems = consumerFitProblems(budget, shape, { lockDurationMs, maxAutoLockRenewalDurationInMs });
  if (problems.length > 0) throw new ConfigurationError(`consumer settings do not fit queue ${options.serviceBus.queueName}: ${problems.join("; ")}`);
}

function retryPolicyOf(options: AnyConsumerOptions): RetryPolicy {
  const retryPolicy: RetryPolicy = { ...defaultRetryPolicy, ...options.retryPolicy, ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }) };
  for (const [name, value] of Object.entries(retryPolicy)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new ConfigurationError(`retry policy ${name} must be a positive integer, got ${String(value)}`);
  }
  if (retryPolicy.maxDelayMs < retryPolicy.baseDelayMs) {
    throw new ConfigurationError(`retry policy maxDelayMs (${retryPolicy.maxDelayMs}) must not be below baseDelayMs (${retryPolicy.baseDelayMs})`);
  }
  return retryPolicy;
}

/** The option, else STRIPE_REQUESTS_PER_SECOND (the infra stack's Stripe budget); empty: none. */
function stripeCeiling(options: AnyConsumerOptions, env: Environment = processEnvironment()): number | undefined {
  const value = options.stripeRequestsPerSecond ?? runtimeEnvironment(env).stripeRequestsPerSecond;
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0) {
    // The variable and the problem, never an environment value (a secret set in the wrong variable must not be logged).
    const source = options.stripeRequestsPerSecond === undefined ? "STRIPE_REQUESTS_PER_SECOND" : `stripeRequestsPerSecond ${value}`;
    throw new ConfigurationError(`${source} must be a positive number of requests per second (the Stripe account's budget for the fleet)`);
  }
  return value;
}

/** A bad scope would fail every message; fail at start instead. */
function checkScope(scope: string): void {
  try {
    stableKey({ scope: "check" }, { scope });
  } catch (error) {
    throw new ConfigurationError(`scope: ${errorMessage(error)}`, { cause: error });
  }
}
