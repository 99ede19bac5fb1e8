// The runtime's errors, in one module under one base class (Powertools style): callers branch on the class, never on
// a message's text or a built-in like TypeError (a bug inside a dependency throws those too). Outcomes of a billing
// stay values (settlement-policy.ts); these are for what must not be mistaken for an outcome.

// The two bases stand on the house's floor (errors/), so every room's errors share them; the runtime's door exports them.
import { ChargeguardError } from "../../errors/index.js";

export { ChargeguardError, ChargeguardSignal } from "../../errors/index.js";

/**
 * The event itself is proven invalid (a field no retry or resubmission can fix): the message is dead-lettered under
 * `InvalidEvent`, and the operator is told not to resubmit it as is. Throw it only after checking the event's fields.
 */
export class InvalidEventError extends ChargeguardError {
  override name = "InvalidEventError";
  constructor(
    message: string,
    /** The event field at fault, e.g. "amountCents". */
    readonly field?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The consumer's own settings are wrong (options, environment, keys): it refuses to start rather than bill wrongly. */
export class ConfigurationError extends ChargeguardError {
  override name = "ConfigurationError";
}

/** A guard operation that contradicts the record's state (e.g. completing a record that was never charged). */
export class BillingStateError extends ChargeguardError {
  override name = "BillingStateError";
}

/** The period's vault key refuses the amount: its cap would be exceeded (HTTP 429 from the proxy). */
export class SpendCapExceededError extends ChargeguardError {
  override name = "SpendCapExceededError";
}

/** The vault key does not allow this Stripe endpoint (HTTP 403 from the proxy). */
export class EndpointNotAllowedError extends ChargeguardError {
  override name = "EndpointNotAllowedError";
}

/** The vault refused to issue or honour a key for reasons an operator must fix (credentials, expiry, config). */
export class VaultKeyError extends ChargeguardError {
  override name = "VaultKeyError";
}

/** What the caller handed the guard primitive cannot be guarded (a key field that is not a string or integer, a bad spend...). */
export class GuardInputError extends ChargeguardError {
  override name = "GuardInputError";
}

/** The guard's lease ran out before the work finished: no further step may call Stripe under it. */
export class LeaseLapsedError extends ChargeguardError {
  override name = "LeaseLapsedError";
}

/** Microsoft Entra gave no token for the database (DATABASE_AUTH=entra): the identity or its assignment is missing. */
export class EntraTokenError extends ChargeguardError {
  override name = "EntraTokenError";
}

/**
 * An embedded data directory that cannot be opened as asked: not a guard database where one must exist, or held by
 * another process. A configuration fault (CLI exit 2), never a reason to create or overwrite anything.
 */
export class DataDirectoryError extends ConfigurationError {
  override name = "DataDirectoryError";
}
