// A label for a Stripe account that is not its key: the hash of what identifies it (the key, or a vault's account).
// The fleet's Stripe budget is kept per label (resilience/fleet-budget.ts), so it must never be a secret.
import { createHash } from "node:crypto";

export function accountLabel(identity: string): string {
  return createHash("sha256").update(identity).digest("hex").slice(0, 16);
}
