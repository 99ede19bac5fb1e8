// chargeguard/runtime/handler: the message handler startBillingConsumer runs, for a consumer that drives its own
// receiver: settlement policy, retry chain (scheduled retries keep the event's identity), step hooks and clock; and
// scheduleRetry, the same scheduled retry as one call for a consumer's own catch block (in place of abandonMessage).
export {
  createBillingHandler,
  type BillingHandler,
  type BillingHandlerDeps,
  type DeliveryPorts,
  type MessageSettler,
  type RetryScheduler,
} from "./billing-handler.js";
export {
  settle,
  retryMessageId,
  defaultRetryPolicy,
  type BillingOutcome,
  type RetryPolicy,
  type AttemptInfo,
  type SettlementAction,
} from "./settlement-policy.js";
export { attemptOf, chainIdOf, retryChainProperties } from "./retry-chain.js";
export { scheduleRetry, defaultRetryReason, type ScheduleRetryOptions, type ScheduledRetry } from "./scheduled-retry.js";
export { consumerSteps, type ConsumerStep, type StepHook } from "./consumer-steps.js";
export { configurationFaultReason } from "./configuration-fault.js";
export { systemClock, type Clock } from "../core/clock.js";
export { ChargeguardSignal } from "../core/errors.js";
export { capCents } from "../stripe/vault/keybrake-key-provider.js";
