// What a claim must hold before it reaches the database, and who is to blame when it does not: a field of the event
// (InvalidEventError: the message is dead-lettered), the consumer's own settings (ConfigurationError), or the code
// that built the claim (TypeError: a bug).
import { ConfigurationError, InvalidEventError } from "../errors.js";
import { maxIdempotencyKeyLength } from "../stable-key.js";
import type { ClaimInput } from "./types.js";

/** An argument the caller builds (a key, a Stripe id, a reason): wrong is a bug in the caller. */
export function requireText(name: string, value: unknown, maxLength: number): void {
  if (typeof value !== "string" || value.length === 0 || value.length > maxLength) {
    throw new TypeError(`${name} must be a non-empty string of at most ${maxLength} characters, got ${JSON.stringify(value)}`);
  }
}

/** A field of the event the claim was built from: wrong means the event itself is invalid, not the consumer. */
function requireEventText(name: string, value: unknown, maxLength: number): void {
  if (typeof value !== "string" || value.length === 0 || value.length > maxLength) {
    throw new InvalidEventError(`${name} must be a non-empty string of at most ${maxLength} characters, got ${JSON.stringify(value)}`, name);
  }
}

export function validateClaim(input: ClaimInput, owner: string): void {
  // What the caller builds (not the event's fields): a wrong type here is a bug in the caller, never an invalid event.
  if (input === null || typeof input !== "object") throw new TypeError("claim input must be an object");
  requireText("idempotencyKey", input.idempotencyKey, maxIdempotencyKeyLength);
  if (input.request === null || typeof input.request !== "object" || Array.isArray(input.request)) {
    throw new TypeError("request must be the Stripe create params object");
  }
  if (typeof owner !== "string" || owner.length === 0 || owner.length > 255) {
    throw new ConfigurationError(`owner must be a non-empty string of at most 255 characters, got ${JSON.stringify(owner)}`);
  }
  requireEventText("customerId", input.customerId, 255);
  requireEventText("billingPeriod", input.billingPeriod, 64);
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0) {
    throw new InvalidEventError(`amountCents must be a positive integer (cents), got ${JSON.stringify(input.amountCents)}`, "amountCents");
  }
  if (typeof input.currency !== "string" || !/^[a-z]{3}$/.test(input.currency)) {
    throw new InvalidEventError(`currency must be a lower-case ISO 4217 code such as "usd", got ${JSON.stringify(input.currency)}`, "currency");
  }
}
