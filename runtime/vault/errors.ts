// Refusals from a vault key (Keybrake or compatible): clear errors the settlement policy maps to dead-letters.

/** The period's vault key refuses the amount: its cap would be exceeded (HTTP 429 from the proxy). */
export class SpendCapExceededError extends Error {
  override readonly name = "SpendCapExceededError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The vault key does not allow this Stripe endpoint (HTTP 403 from the proxy). */
export class EndpointNotAllowedError extends Error {
  override readonly name = "EndpointNotAllowedError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The vault refused to issue or honour a key for reasons an operator must fix (credentials, expiry, config). */
export class VaultKeyError extends Error {
  override readonly name = "VaultKeyError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Error codes a Keybrake-compatible proxy puts in its Stripe-shaped error bodies. */
export const vaultErrorCodes = {
  spendCapExceeded: "vault_spend_cap_exceeded",
  endpointNotAllowed: "vault_endpoint_not_allowed",
  keyExpired: "vault_key_expired",
  keyUnknown: "vault_key_unknown",
} as const;
