// chargeguard/runtime: what a billing consumer's author imports. Named exports only, a short list: the consumer, the
// flows, the guard, keys and events, vault keys and the errors. Advanced parts live behind named subpaths, as AWS
// Powertools does it:
//   chargeguard/runtime/guard      the billing record, its stores, leases, spend caps, health
//   chargeguard/runtime/flows      flow adapters' details, the Stripe client and error classification
//   chargeguard/runtime/handler    the message handler, settlement policy, retry chain, step hooks
//   chargeguard/runtime/telemetry  OpenTelemetry metrics and traces
//   chargeguard/runtime/operator   DLQ tools and the reconcilers
//   chargeguard/runtime/audit      finding and refunding the double charges already in a Stripe account
// What is not listed in one of these is an internal of the room (tests reach it by path).

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
} from "./core/errors.js";

// The consumer: receive, guard, bill, settle.
export { startBillingConsumer, startConsumer, type BillingConsumerOptions } from "./consumer/consumer.js";
export { ConsumerStartError } from "./consumer/servicebus-preflight.js";
export { StartStoppedSignal } from "./consumer/database-at-start.js";
export type { ConsumerContext, RunningConsumer, StartConsumer, StripeSettings } from "./consumer/consumer-contract.js";
export { gateSettlements, type SettlingReceiver } from "./consumer/settlement-gate.js";

// Events and keys: the default usage event, or the team's own schema (Standard Schema).
export type { UsageEvent } from "./event/usage-event.js";
export { parseUsageEvent, usageEventSchema, type UsageEventParseResult } from "./event/event-schema.js";
export {
  parseBillingEvent,
  usageEventBilling,
  type Billable,
  type BillingEventDefinition,
  type StandardSchemaV1,
} from "./flows/billing-event.js";
export { stableKey, type StableKeyOptions } from "./core/stable-key.js";
export { currencyProblem, amountProblem } from "./core/currency.js";

// Billing flows: any Stripe work behind the guard.
export { type FlowAdapter, type FlowContext } from "./flows/flow-adapter.js";
export { paymentIntentFlow, findPaymentIntentByKey } from "./flows/payment-intent-flow.js";
export { chargeFlow, findChargeByKey, type ChargeRequest } from "./flows/charge-flow.js";
export { invoiceFlow, type InvoiceRequest, type InvoiceItemRequest } from "./flows/invoice-flow.js";
export { meterEventFlow, meterIdentifier, MeterEventUnverifiable, type MeterEventRequest } from "./flows/meter-event-flow.js";
export { stripeErrorClass } from "./flows/stripe-error-class.js";

// The guard: every consumer's billing records; its primitive `run` for a consumer that keeps its own receiver.
export { Guard, type GuardOptions } from "./guard/guard.js";
export type { GuardRunInput, GuardContext, GuardWork, GuardWorkResult, GuardOutcome } from "./guard/guarded-run.js";

// Vault keys and database sign-in (the queue rights a consumer holds are the tuning's: chargeguard/tuning).
export { EnvironmentKeyProvider, type EnvironmentKeyProviderOptions } from "./stripe/vault/environment-key-provider.js";
export { KeybrakeKeyProvider, type KeybrakeKeyProviderOptions } from "./stripe/vault/keybrake-key-provider.js";
export type { KeyRequest, VaultKeyProvider } from "./stripe/vault/key-provider.js";
export { entraPassword, type EntraPasswordOptions } from "./guard/entra-password.js";
// Where a key may go, and text an operator reads: secrets redacted, control characters escaped.
export { isLiveSecretKey, keyDestinationProblem, type KeyDestinationOptions } from "./stripe/key-destination.js";
export { redactSecrets } from "./core/text/redact.js";
export { terminalSafe } from "./core/text/terminal-safe.js";
// The environment, read in one place: the consumer's variables, as its config and the CLI's operator commands take them.
export { consumerVariables, processEnvironment, type ConsumerVariables, type Environment } from "./core/environment.js";
