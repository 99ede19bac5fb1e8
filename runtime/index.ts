// chargeguard/runtime: what a billing consumer imports at run time. Named exports only: what is not listed here is
// an internal of the room (tests reach it by path).

// Errors: one base class; branch on the class (InvalidEventError dead-letters, ConfigurationError stops at start).
export {
  ChargeguardError,
  InvalidEventError,
  ConfigurationError,
  DataDirectoryError,
  BillingStateError,
  SpendCapExceededError,
  EndpointNotAllowedError,
  VaultKeyError,
  GuardInputError,
  LeaseLapsedError,
  EntraTokenError,
} from "./errors.js";

// The consumer contract and the default event.
export { systemClock, type Clock } from "./clock.js";
export type { UsageEvent } from "./usage-event.js";
export { consumerSteps, type ConsumerStep, type StepHook } from "./consumer-steps.js";
export type { ConsumerContext, RunningConsumer, StartConsumer, StripeSettings } from "./consumer-contract.js";

// Keys and events.
export { stableKey, maxIdempotencyKeyLength, type StableKeyOptions } from "./stable-key.js";
export {
  parseUsageEvent,
  usageEventSchema,
  maxEventBodyBytes,
  type UsageEventParseResult,
} from "./event-schema.js";
export {
  currencyProblem,
  amountProblem,
  minorUnitsPerMajor,
  zeroDecimalCurrencies,
  threeDecimalCurrencies,
  wholeUnitTwoDecimalCurrencies,
} from "./currency.js";

// The billing guard (PostgreSQL or PGlite).
export { BillingGuard, defaultLeaseMs } from "./guard/billing-guard.js";
export {
  entraPassword,
  POSTGRES_ENTRA_SCOPE,
  DEFAULT_TOKEN_REFRESH_MARGIN_MS,
  type EntraPasswordOptions,
} from "./guard/entra-password.js";
export type {
  BillingState,
  BillingRecord,
  ClaimInput,
  ClaimResult,
  Lease,
  BillingGuardOptions,
  PeriodSpend,
} from "./guard/types.js";

// The guard primitive: any Stripe work (any flow, any identity) behind a claim, recovery points and a spend cap.
export { Guard, type GuardOptions, type GuardRecord, type GuardRecordState, type GuardLease } from "./guard/record-guard.js";
export {
  runGuarded,
  stepIdempotencyKey,
  type GuardRunInput,
  type GuardRunOptions,
  type GuardContext,
  type GuardWork,
  type GuardWorkResult,
  type GuardErrorClass,
  type GuardOutcome,
  type GuardPhaseHooks,
} from "./guard/guarded-run.js";
export type { GuardStore, StoreClaim, StoreClaimRequest, StoreLease, Spend } from "./guard/guard-store.js";
export { billingRecordStore, type BillingRecordPort } from "./guard/billing-store.js";
export type { SpendCapOptions } from "./guard/spend-caps.js";

// Billing flows behind the guard, and the team's own events.
export { flowNames, stripeKeyWindowMs as flowKeyWindowMs, type FlowAdapter, type FlowContext, type FlowName } from "./flows/flow-adapter.js";
export { paymentIntentFlow, findPaymentIntentByKey } from "./flows/payment-intent-flow.js";
export { chargeFlow, findChargeByKey, type ChargeRequest } from "./flows/charge-flow.js";
export { invoiceFlow, maxInvoiceItems, type InvoiceRequest, type InvoiceItemRequest } from "./flows/invoice-flow.js";
export {
  meterEventFlow,
  meterIdentifier,
  maxMeterIdentifierLength,
  MeterEventUnverifiable,
  type MeterEventRequest,
} from "./flows/meter-event-flow.js";
export { stripeErrorClass } from "./flows/stripe-error-class.js";
export { stripeOperations, type StripeOperation, type StripeCallObserver } from "./flows/stripe-call.js";
export {
  parseBillingEvent,
  usageEventBilling,
  type Billable,
  type BillingEventDefinition,
  type StandardSchemaV1,
} from "./billing-event.js";

// Stripe.
export { classifyStripeError, type StripeFailure } from "./stripe/classify-error.js";
export { createStripeClient, type StripeClientOptions } from "./stripe/client.js";
export { createPaymentIntent } from "./stripe/create-payment-intent.js";
export { buildPaymentIntentParams, type PaymentIntentRequest } from "./stripe/payment-intent-params.js";

// Vault keys and spend caps.
export { EnvironmentKeyProvider, type EnvironmentKeyProviderOptions } from "./vault/environment-key-provider.js";
export { KeybrakeKeyProvider, capCents, type KeybrakeKeyProviderOptions } from "./vault/keybrake-key-provider.js";
export type { KeyRequest, VaultKeyProvider } from "./vault/key-provider.js";

// Settlement, the consumer, and the operators' tools.
export {
  settle,
  retryMessageId,
  defaultRetryPolicy,
  type BillingOutcome,
  type RetryPolicy,
  type AttemptInfo,
  type SettlementAction,
} from "./settlement-policy.js";
export { gateSettlements, type SettlingReceiver } from "./settlement-gate.js";
export { attemptOf, chainIdOf, retryChainProperties } from "./retry-chain.js";
export {
  createBillingHandler,
  type BillingHandler,
  type BillingHandlerDeps,
  type BillingGuardPort,
  type DeliveryPorts,
  type MessageSettler,
  type RetryScheduler,
} from "./billing-handler.js";
export { startBillingConsumer, startConsumer, type BillingConsumerOptions } from "./consumer.js";
export { ConsumerStartError } from "./servicebus-preflight.js";
export { configurationFaultReason } from "./configuration-fault.js";

// Telemetry (OpenTelemetry API only: a no-op until the application registers an SDK).
export {
  BillingTelemetry,
  createBillingTelemetry,
  type BillingTelemetryOptions,
  type DeliveryParts,
  type StripeSlot,
} from "./telemetry/billing-telemetry.js";
export {
  metricNames,
  attributeNames,
  billingOutcomes,
  preventedBy,
  duplicateSources,
  type BillingOutcomeName,
  type PreventedBy,
  type DuplicateSource,
} from "./telemetry/metric-names.js";
export { semanticConventionsVersion } from "./telemetry/semantic-conventions.js";
export type { GuardHealth, PeriodCurrencySpend } from "./guard/health.js";
export {
  reconcileFlows,
  builtInFlows,
  type FlowReconcileAction,
  type FlowReconcileOptions,
  type FlowReconcileOutcome,
  type FlowReconcileReport,
} from "./reconcile-flows.js";
export {
  peekDeadLetters,
  resubmitDeadLetters,
  resubmission,
  resubmitMessageId,
  resubmitIdReason,
  type DeadLetterFilter,
  type DeadLetterOptions,
  type DeadLetterSummary,
  type ResubmitOptions,
  type ResubmitReport,
  type ResubmittedMessage,
} from "./dlq.js";
export {
  reconcile,
  findPaymentIntent,
  stripeKeyWindowMs,
  type ReconcileAction,
  type ReconcileOptions,
  type ReconcileOutcome,
  type ReconcileReport,
} from "./reconcile.js";

// The rights a consumer (and an operator) holds on its queue, as BillingQueue deploys them (one definition, in the
// tuning room): the proving ground and the generated project's tests run consumers with exactly these.
export { consumerQueueRights, operatorQueueRights, type QueueRights, type SasRight } from "../tuning/index.js";
