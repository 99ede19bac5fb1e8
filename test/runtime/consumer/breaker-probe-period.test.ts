// Issue 41, defect 3: the breakers' probe asked the vault for the calendar month's key, whatever the consumer bills.
// A consumer billing in arrears (nothing forecast for this month, so no key for it) never closed its breaker after a
// short outage. Now the Stripe and vault breakers probe with the key of the period billing last asked for. The
// consumer's resilience as the consumer starts it, the real SDK against the sandbox's Stripe.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { trackBilledPeriod } from "../../../runtime/consumer/billed-keys.js";
import { consumerSettings, type AnyConsumerOptions } from "../../../runtime/consumer/consumer-settings.js";
import { startResilience } from "../../../runtime/consumer/consumer-resilience.js";
import { stripeAccess } from "../../../runtime/stripe/stripe-access.js";
import { VaultKeyError } from "../../../runtime/core/errors.js";
import type { VaultKeyProvider } from "../../../runtime/stripe/vault/key-provider.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

let stripe: StripeEmulator;
beforeAll(async () => {
  stripe = await startStripeEmulator();
});
afterAll(async () => {
  await stripe?.stop();
});

/** A vault that issues keys only for the period billed in arrears: the calendar month has nothing forecast. */
const billed = "2026-10";
const arrearsVault: VaultKeyProvider = {
  async keyFor(period) {
    if (period !== billed) throw new VaultKeyError(`no key for ${period}: nothing is forecast for it`);
    return "rk_test_sandbox";
  },
};

describe("the breakers probe with the period billing uses (issue 41, defect 3)", () => {
  it("a consumer billing last month: the Stripe and vault breakers close once their dependency is back", async () => {
    const options = {
      stripe: { apiKey: "" },
      keyProvider: arrearsVault,
      expectedPeriodTotalCents: 1_000,
      breakers: { failureThreshold: 1, firstProbeDelayMs: 50, maxProbeDelayMs: 100 },
    } as unknown as AnyConsumerOptions;
    const keys = trackBilledPeriod(arrearsVault);
    const access = stripeAccess({ keys, apiBase: stripe.apiBase, timeoutMs: 2_000, maxNetworkRetries: 0 });
    const resilience = await startResilience({ options, settings: consumerSettings(options), stripe: { keys, stripeFor: access.stripeFor }, owner: "probe", log: () => {} });
    try {
      // Billing asks for its period's key, as the handler does through the vault's watch.
      await resilience.watchKeys(keys).keyFor(billed, { expectedTotalCents: 1_000 });
      resilience.breakers.stripe.failed("a short outage");
      resilience.breakers.vault.failed("a short outage");
      expect(resilience.breakers.stripe.state).toBe("open");
      expect(resilience.breakers.vault.state).toBe("open");
      await vi.waitFor(() => {
        expect(resilience.breakers.stripe.state).toBe("closed");
        expect(resilience.breakers.vault.state).toBe("closed");
      }, { timeout: 3_000 });
    } finally {
      await resilience.close();
    }
  });
});
