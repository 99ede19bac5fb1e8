import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../../sandbox/stripe/index.js";
import { classifyStripeError } from "../../../../runtime/stripe/classify-error.js";
import { createStripeClient } from "../../../../runtime/stripe/client.js";
import { createPaymentIntent } from "../../../../runtime/stripe/create-payment-intent.js";
import { buildPaymentIntentParams } from "../../../../runtime/stripe/payment-intent-params.js";
import { EnvironmentKeyProvider } from "../../../../runtime/stripe/vault/environment-key-provider.js";
import { EndpointNotAllowedError, SpendCapExceededError, VaultKeyError } from "../../../../runtime/core/errors.js";
import type { VaultKeyProvider } from "../../../../runtime/stripe/vault/key-provider.js";
import { capCents, KeybrakeKeyProvider, keyExpiry, periodExpiry } from "../../../../runtime/stripe/vault/keybrake-key-provider.js";

let stripe: StripeEmulator;
let keybrake: KeybrakeEmulator;
let customer: string;

beforeAll(async () => {
  stripe = await startStripeEmulator();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: stripe.apiBase });
  const admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
  customer = (await admin.customers.create({ name: "vault test" })).id;
});
afterAll(async () => {
  await keybrake?.stop();
  await stripe?.stop();
});

const event = (amountCents: number, customerId = "acct-1") => ({
  customerId,
  stripeCustomerId: customer,
  paymentMethodId: "pm_card_visa",
  billingPeriod: "2026-10",
  amountCents,
  currency: "usd",
});

describe("KeybrakeKeyProvider against the Keybrake stand-in", () => {
  it("creates one capped, allowlisted, expiring key per period and caches it", async () => {
    const provider = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey });
    const first = await provider.keyFor("2026-10", { expectedTotalCents: 10_000 });
    expect(await provider.keyFor("2026-10", { expectedTotalCents: 10_000 })).toBe(first);
    const other = await provider.keyFor("2026-11", { expectedTotalCents: 10_000 });
    expect(other).not.toBe(first);
    const state = keybrake.keys().find((k) => k.vaultKey === first);
    expect(state).toMatchObject({ label: "chargeguard-2026-10", capCents: 11_000, allowedEndpoints: ["/v1/payment_intents"] });
    // A period already over gets a key that lives one more day, not an already expired one.
    expect(state?.expiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("charges through the proxy with the real SDK, then refuses over the cap (429 -> SpendCapExceededError)", async () => {
    const provider = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey });
    const key = await provider.keyFor("2026-12", { expectedTotalCents: 1_000 });
    const client = createStripeClient({ apiKey: key, apiBase: provider.apiBase, timeoutMs: 5_000, maxNetworkRetries: 1 });
    const e1 = { ...event(900, "cap-1"), billingPeriod: "2026-12" };
    const intent = await createPaymentIntent(client, buildPaymentIntentParams(e1, "billing:v1:cap-1"), "billing:v1:cap-1");
    expect(intent.status).toBe("succeeded");
    // A replay of the same key is not a new spend.
    const replay = await createPaymentIntent(client, buildPaymentIntentParams(e1, "billing:v1:cap-1"), "billing:v1:cap-1");
    expect(replay.id).toBe(intent.id);
    const e2 = { ...event(300, "cap-2"), billingPeriod: "2026-12" };
    const refused = await createPaymentIntent(client, buildPaymentIntentParams(e2, "billing:v1:cap-2"), "billing:v1:cap-2").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SpendCapExceededError);
    expect(classifyStripeError(refused)).toMatchObject({ kind: "spend-cap" });
    expect(stripe.ledger.paymentIntents(customer).filter((pi) => pi.metadata.billing_period === "2026-12")).toHaveLength(1);
  });

  it("refuses an endpoint outside the allowlist (403 -> EndpointNotAllowedError)", async () => {
    const provider = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey });
    const key = await provider.keyFor("2027-01", { expectedTotalCents: 1_000 });
    const client = createStripeClient({ apiKey: key, apiBase: provider.apiBase, timeoutMs: 5_000, maxNetworkRetries: 0 });
    const refused = await client.refunds.create({ payment_intent: "pi_x" }).catch((e: unknown) => e);
    expect(classifyStripeError(refused)).toMatchObject({ kind: "configuration" });
    const { fromVaultRefusal } = await import("../../../../runtime/stripe/create-payment-intent.js");
    expect(fromVaultRefusal(refused)).toBeInstanceOf(EndpointNotAllowedError);
    expect(keybrake.refusals().vault_endpoint_not_allowed).toBeGreaterThanOrEqual(1);
  });

  it("a wrong Keybrake API key is a clear VaultKeyError, and is not cached", async () => {
    const provider = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: "kb_test_wrong" });
    await expect(provider.keyFor("2026-10", { expectedTotalCents: 100 })).rejects.toThrow(VaultKeyError);
    await expect(provider.keyFor("2026-10", { expectedTotalCents: 100 })).rejects.toThrow(/refused to create a vault key for 2026-10 \(401\)/);
    await expect(provider.keyFor("2026-10", { expectedTotalCents: 0 })).rejects.toThrow(/expectedTotalCents/);
  });

  it("an unreachable Keybrake is a transient error (retried later), not a configuration error", async () => {
    const provider = new KeybrakeKeyProvider({ baseUrl: "http://127.0.0.1:1", apiKey: "kb_test_sandbox" });
    const error = await provider.keyFor("2026-10", { expectedTotalCents: 100 }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(VaultKeyError);
    expect(classifyStripeError(error).kind).toBe("unknown");
  });

  it("computes the cap and expiry exactly", () => {
    expect(capCents(1_000, 1.1)).toBe(1_100);
    expect(capCents(999, 1.1)).toBe(1_099);
    expect(periodExpiry("2026-12", 7)?.toISOString()).toBe("2027-01-08T00:00:00.000Z");
    // Not a month ("2026-13", "unpriced"): no period end, a key for a day (issue 30, defect 5: it threw).
    expect(periodExpiry("2026-13", 7)).toBeUndefined();
    const now = Date.UTC(2027, 5, 1);
    expect(keyExpiry("2027-09", 7, now).toISOString()).toBe("2027-10-08T00:00:00.000Z");
    expect(keyExpiry("2026-10", 7, now).getTime()).toBe(now + 86_400_000);
  });
});

describe("EnvironmentKeyProvider", () => {
  it("serves a restricted key for every period", async () => {
    const provider: VaultKeyProvider = new EnvironmentKeyProvider({ env: { STRIPE_API_KEY: "rk_test_sandbox" } });
    expect(await provider.keyFor("2026-10", { expectedTotalCents: 1 })).toBe("rk_test_sandbox");
  });

  it("refuses a live secret key, a missing key and a non-key; warns on a test secret key", () => {
    expect(() => new EnvironmentKeyProvider({ env: { STRIPE_API_KEY: "sk_live_" + "x" } })).toThrow(/live secret key/);
    expect(() => new EnvironmentKeyProvider({ env: {} })).toThrow(/STRIPE_API_KEY is not set/);
    expect(() => new EnvironmentKeyProvider({ apiKey: "hunter2" })).toThrow(/does not look like a Stripe key/);
    const warnings: string[] = [];
    new EnvironmentKeyProvider({ apiKey: "sk_test_sandbox", warn: (line) => warnings.push(line) });
    expect(warnings).toEqual([expect.stringMatching(/full-access test key/)]);
  });
});
