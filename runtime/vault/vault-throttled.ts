// A vault that answers 429 to a key request is throttling (Key Vault and Keybrake both do), not refusing: the
// request is fine and will work later. Not a ChargeguardError on purpose: those are refusals and answers.

export class VaultThrottledError extends Error {
  override readonly name = "VaultThrottledError";
}
