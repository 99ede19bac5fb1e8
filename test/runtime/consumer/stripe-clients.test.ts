// Issue 30, defect 7: a Stripe client (about 45 KB) was cached per key forever; with vault keys rotating each hour
// per period that is a leak that grows daily. The cache now holds the clients of the keys in use, bounded: a key
// no longer current loses its client. Against the Keybrake stand-in with the real SDK.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeAccess, maxCachedClients } from "../../../runtime/stripe/stripe-access.js";
import { KeybrakeKeyProvider } from "../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

let stripe: StripeEmulator;
let keybrake: KeybrakeEmulator;
const clock = { at: Date.UTC(2026, 9, 5), now: () => clock.at };

beforeAll(async () => {
  stripe = await startStripeEmulator();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: stripe.apiBase, clock });
});
afterAll(async () => {
  await keybrake?.stop();
  await stripe?.stop();
});

describe("Stripe clients per key (issue 30, defect 7)", () => {
  it("keys rotating hourly for three days (three periods at a time) keep at most the bound of clients; a current key keeps its client", async () => {
    const keys = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock, keyLifetimeMs: 3_600_000 });
    const access = stripeAccess({ keys, timeoutMs: 5_000, maxNetworkRetries: 0 });
    const seen = new Set<string>();
    for (let hour = 0; hour < 72; hour += 1, clock.at += 3_600_000 + 1) {
      for (const period of ["2026-09", "2026-10", "unpriced"]) {
        const key = await keys.keyFor(period, { expectedTotalCents: 1_000 });
        seen.add(key);
        const client = access.stripeFor(key);
        expect(access.stripeFor(key)).toBe(client);
        // The client works: a read through the vault's proxy.
        await expect(client.paymentIntents.list({ limit: 1 })).resolves.toMatchObject({ object: "list" });
      }
    }
    expect(seen.size).toBe(216);
    expect(access.cachedClients()).toBeLessThanOrEqual(maxCachedClients);
  });
});
