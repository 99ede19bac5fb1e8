// A vault that answers 429 to a key request is throttling (Key Vault and Keybrake both do), not refusing: the
// request is fine and will work later. A signal (ChargeguardSignal), not a ChargeguardError: those are refusals and answers.
import { ChargeguardSignal } from "../../core/errors.js";

export class VaultThrottledError extends ChargeguardSignal {
  override readonly name = "VaultThrottledError";
  /** The vault's `Retry-After`, in ms, when it sent one: how long to leave it alone. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { retryAfterMs?: number | undefined } = {}) {
    super(message);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** `Retry-After` in seconds (Key Vault and Keybrake send seconds) as ms; an HTTP date or nonsense: none. */
export function retryAfterMs(header: string | null): number | undefined {
  if (header === null || !/^\d+(\.\d+)?$/.test(header.trim())) return undefined;
  return Math.min(60_000, Number(header.trim()) * 1000);
}
