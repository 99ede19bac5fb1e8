// chargeguard/runtime/flows: the flows' limits and operations, and the Stripe client they call. The flow adapters
// themselves are in the root export.
export { stripeKeyWindowMs } from "./flow-adapter.js";
export { maxMeterIdentifierLength } from "./meter-event-flow.js";
export { stripeOperations, type StripeOperation, type StripeCallObserver } from "../stripe/stripe-call.js";
export { classifyStripeError, type StripeFailure } from "../stripe/classify-error.js";
export { createStripeClient, type StripeClientOptions } from "../stripe/client.js";
export { isStripeErrorOfType, stripeErrorIn, type StripeErrorType } from "../stripe/stripe-error.js";
export { createPaymentIntent } from "../stripe/create-payment-intent.js";
export { buildPaymentIntentParams, type PaymentIntentRequest } from "../stripe/payment-intent-params.js";
export { maxIdempotencyKeyLength } from "../core/stable-key.js";
export { maxEventBodyBytes } from "../event/event-schema.js";
export {
  minorUnitsPerMajor,
  zeroDecimalCurrencies,
  threeDecimalCurrencies,
  wholeUnitTwoDecimalCurrencies,
} from "../core/currency.js";
