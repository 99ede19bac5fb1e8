// The codes a vault key's refusals carry (Keybrake or compatible). The refusals' classes are the runtime's one errors
// module's (core/errors.ts); vault-refusal.ts turns a code into its class.

/** Error codes a Keybrake-compatible proxy puts in its Stripe-shaped error bodies. */
export const vaultErrorCodes = {
  spendCapExceeded: "vault_spend_cap_exceeded",
  endpointNotAllowed: "vault_endpoint_not_allowed",
  keyExpired: "vault_key_expired",
  keyUnknown: "vault_key_unknown",
} as const;
