// Refusals from a vault key (Keybrake or compatible). The classes live in the runtime's one errors module
// (../errors.ts); they are re-exported here so imports of this module keep working.
export { SpendCapExceededError, EndpointNotAllowedError, VaultKeyError } from "../../core/errors.js";

/** Error codes a Keybrake-compatible proxy puts in its Stripe-shaped error bodies. */
export const vaultErrorCodes = {
  spendCapExceeded: "vault_spend_cap_exceeded",
  endpointNotAllowed: "vault_endpoint_not_allowed",
  keyExpired: "vault_key_expired",
  keyUnknown: "vault_key_unknown",
} as const;
