// Stripe's errors, recognised by their `type`: the class name the SDK writes on every error it raises
// (stripe-node's Error.js: `this.type = type || this.constructor.name`, each subclass passing its own name), and
// Stripe's documented way to tell them apart (`switch (err.type) { case 'StripeCardError': ... }`). Not `instanceof`:
// the runtime loads the SDK's CommonJS build (sdk/load-stripe.ts) while a consumer's `import Stripe from "stripe"`
// gets the ESM build, two sets of classes, and an error from one is no instance of the other's. By `type`, an error
// from either build (or any copy of the SDK) is recognised alike, without loading the SDK to look.
import type Stripe from "stripe";

type ErrorExports = typeof Stripe.errors;

/** The names of Stripe's error classes (`Stripe.errors.*`, the factories left out). */
export type StripeErrorType = { [K in keyof ErrorExports]: ErrorExports[K] extends abstract new (...args: never[]) => Error ? K : never }[keyof ErrorExports];

/**
 * The error class named `T`, as an instance type whose `type` is `T`. The literal keeps a failed check from narrowing
 * a StripeError to `never`: the classes add no members, so to the compiler a StripeError is a StripeRateLimitError.
 */
export type StripeErrorOf<T extends StripeErrorType> = InstanceType<ErrorExports[T]> & { readonly type: T };

// Every class of the installed SDK, no more: the compiler refuses a name missing or unknown (an upgrade that adds a
// class fails `tsc` here until it is listed).
const stripeErrorTypes: Record<StripeErrorType, true> = {
  StripeError: true,
  StripeCardError: true,
  StripeInvalidRequestError: true,
  StripeAPIError: true,
  StripeAuthenticationError: true,
  StripePermissionError: true,
  StripeRateLimitError: true,
  StripeConnectionError: true,
  StripeSignatureVerificationError: true,
  StripeIdempotencyError: true,
  StripeOAuthError: true,
  StripeInvalidGrantError: true,
  StripeInvalidClientError: true,
  StripeOAuthInvalidRequestError: true,
  StripeInvalidScopeError: true,
  StripeUnsupportedGrantTypeError: true,
  StripeUnsupportedResponseTypeError: true,
  AlreadyCanceledError: true,
  BlockedByStripeError: true,
  CannotProceedError: true,
  CapabilityNotEnabledError: true,
  ControlledByAlternateResourceError: true,
  FeatureNotEnabledError: true,
  FinancialAccountNotOpenError: true,
  FxQuoteNeedsRefreshError: true,
  InsufficientFundsError: true,
  InvalidPaymentMethodError: true,
  InvalidPayoutMethodError: true,
  InvalidVaultedCredentialError: true,
  NotCancelableError: true,
  QuotaExceededError: true,
  RateLimitError: true,
  RecipientNotNotifiableError: true,
  TemporarySessionExpiredError: true,
  VerificationAttemptFailedError: true,
  VerificationExpiredError: true,
  VerificationNotInitiatedError: true,
};

/** Every name in `Stripe.errors` that is an error class, for the test that holds this list to the SDK. */
export const knownStripeErrorTypes: readonly string[] = Object.keys(stripeErrorTypes);

/** The error as a Stripe error (any of `Stripe.errors.*`, from any copy of the SDK); undefined for anything else. */
export function stripeErrorIn(error: unknown): Stripe.errors.StripeError | undefined {
  if (!(error instanceof Error)) return undefined;
  const type = (error as { type?: unknown }).type;
  return typeof type === "string" && Object.hasOwn(stripeErrorTypes, type) ? (error as Stripe.errors.StripeError) : undefined;
}

/** The classes other classes extend: a `type` names the class that made the error, so asking for these would miss. */
type BaseClass = "StripeError" | "StripeOAuthError";

/**
 * True when the error is Stripe's error of class `type` (what `instanceof Stripe.errors[type]` meant, for any build;
 * none of these classes has a subclass). For any Stripe error, `stripeErrorIn`.
 */
export function isStripeErrorOfType<T extends Exclude<StripeErrorType, BaseClass>>(error: unknown, type: T): error is StripeErrorOf<T> {
  return stripeErrorIn(error)?.type === type;
}

/** Stripe refusing the key itself or its rights (401 or 403): a configuration problem, not this request's. */
export function isStripeKeyRefusal(error: unknown): error is StripeErrorOf<"StripeAuthenticationError" | "StripePermissionError"> {
  return isStripeErrorOfType(error, "StripeAuthenticationError") || isStripeErrorOfType(error, "StripePermissionError");
}
