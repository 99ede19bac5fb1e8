// The Stripe idempotency key of a billing event, derived from business fields only: the same event always
// gets the same key, whichever message, replica or day delivers it.
import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

export { canonicalJson } from "./canonical-json.js";

/** Stripe accepts idempotency keys of at most 255 characters. */
export const maxIdempotencyKeyLength = 255;

const scopePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface StableKeyOptions {
  /** What the key is for, e.g. "billing": 1-64 characters of letters, digits, `.`, `_`, `-`. */
  scope: string;
}

/** `<scope>:v1:<sha256 hex of the canonical JSON of fields>` (at most 4 + 64 + 64 = 132 characters). */
export function stableKey(fields: Record<string, unknown>, options: StableKeyOptions): string {
  const scope = options?.scope;
  if (typeof scope !== "string" || !scopePattern.test(scope)) {
    throw new TypeError(
      `stableKey scope ${JSON.stringify(scope)} is invalid: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  const digest = createHash("sha256").update(canonicalJson(fields), "utf8").digest("hex");
  return `${scope}:v1:${digest}`;
}
