// The Stripe emulator: an HTTP stand-in for the Stripe API that the unmodified `stripe` SDK talks to.
export { startStripeEmulator, type StripeEmulator, type StripeEmulatorOptions } from "./emulator.js";
export { StripeFaults, type StripeFaultAction, type StripeFaultHandle, type StripeFaultMatch, type StripeFaultRequest, type StripeFaultSpec } from "./faults.js";
export { idempotencyWindowMs } from "./idempotency.js";
export { byCustomerAndBillingPeriod, StripeLedger, type ChargeKey, type DuplicateCharges } from "./ledger.js";
export type { Dispute, DisputeStatus } from "./dispute-objects.js";
export type { Charge, Customer, Metadata, PaymentError, PaymentIntent, PaymentIntentStatus, Refund } from "./objects.js";
export { testPaymentMethodIds } from "./payment-methods.js";
export { StripeDegradation, type DegradationStats, type StripeDegradationStep } from "./degradation.js";
export type { OutageAnswer, StripeOutageSpec } from "./outage.js";
export { endpointOf, type RateLimitedReason, type StripeRateLimit } from "./rate-limit.js";
