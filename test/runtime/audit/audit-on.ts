import { auditAccount, TokenBucket, type AuditOptions, type AuditResult } from "../../../runtime/audit/index.js";
import type { StripeEmulator } from "../../../sandbox/stripe/index.js";

/** The audit engine on the emulator's account: every flow, key metadata.usage_id, a one-hour window, a wide budget. */
export function auditOn(emulator: Pick<StripeEmulator, "apiBase">, options: Partial<AuditOptions> = {}): Promise<AuditResult> {
  return auditAccount({
    apiKey: "rk_test_sandbox",
    apiBase: emulator.apiBase,
    budget: new TokenBucket(1_000),
    flows: ["paymentintents", "charges", "invoices"],
    keyPath: ["metadata", "usage_id"],
    windowSeconds: 3_600,
    ...options,
  });
}
