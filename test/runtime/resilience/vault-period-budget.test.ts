// Issue 30, defects 3 and 5, against the Keybrake stand-in with the real SDK on a virtual clock.
// 3: a period's vault cap holds across key refreshes and replicas (each refresh minted a key with the whole cap: about
//    30 caps per replica per day). 5: a period that is not `YYYY-MM` ("unpriced", a custom period) gets a key, or a
//    clear refusal, and never an unhandled rejection (it threw before its rejection handler was attached).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VaultKeyError } from "../../../runtime/core/errors.js";
import { createStripeClient } from "../../../runtime/stripe/client.js";
import { KeybrakeKeyProvider, keyExpiry } from "../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

/** The virtual clock: a day's midnight (UTC), moved by the test. */
const clock = { at: Date.UTC(2026, 9, 5), now: () => clock.at };
let stripe: StripeEmulator;
let keybrake: KeybrakeEmulator;
let admin: Stripe;

beforeAll(async () => {
  stripe = await startStripeEmulator();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: stripe.apiBase, clock });
  admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
});
afterAll(async () => {
  await keybrake?.stop();
  await stripe?.stop();
});

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
});

/** Lets background refreshes (a real HTTP round trip) land. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

describe("a period's vault cap across refreshes and replicas (issue 30, defect 3)", () => {
  it("two replicas refreshing their keys every 48 min for a day cannot together spend past the period's cap", async () => {
    const customer = await admin.customers.create({ name: "budget" });
    const replicas = [0, 1].map(() => new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock }));
    const request = { expectedTotalCents: 1_000 }; // a cap of 1,100 cents a day
    let accepted = 0;
    let refused = 0;
    const dayEnd = clock.at + 86_400_000 - 1;
    for (let n = 0; clock.at < dayEnd; n += 1, clock.at += 10 * 60_000) {
      for (const [replica, keys] of replicas.entries()) {
        const client = createStripeClient({ apiKey: await keys.keyFor("2026-10", request), apiBase: keybrake.baseUrl, timeoutMs: 5_000, maxNetworkRetries: 0 });
        const charged = await client.paymentIntents
          .create({ amount: 100, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true }, { idempotencyKey: `budget-${replica}-${n}` })
          .then(() => true, (error: unknown) => (error as { code?: string }).code !== "vault_spend_cap_exceeded" ? Promise.reject(error) : false);
        if (charged) accepted += 100;
        else refused += 1;
      }
      await settle();
    }
    const minted = keybrake.keys().filter((key) => key.label === "chargeguard-2026-10");
    expect(minted.length).toBeGreaterThan(20); // keys were refreshed all day, on both replicas
    expect(accepted).toBe(1_100);
    expect(refused).toBe(2 * 144 - 11);
    expect(unhandled).toEqual([]);
  });
});

describe("budgets named per consumer", () => {
  it("two consumers on one vault account, each with its own budgetName, spend a cap each; a bad name is refused at construction", async () => {
    const customer = await admin.customers.create({ name: "two consumers" });
    const request = { expectedTotalCents: 1_000 }; // a cap of 1,100 cents a day each
    const consumers = ["invoices-eu", "usage.us"].map((budgetName) => new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock, budgetName }));
    const accepted = [0, 0];
    for (let n = 0; n < 15; n += 1) {
      for (const [i, keys] of consumers.entries()) {
        const client = createStripeClient({ apiKey: await keys.keyFor("2026-11", request), apiBase: keybrake.baseUrl, timeoutMs: 5_000, maxNetworkRetries: 0 });
        const charged = await client.paymentIntents
          .create({ amount: 100, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true }, { idempotencyKey: `named-${i}-${n}` })
          .then(() => true, (error: unknown) => (error as { code?: string }).code !== "vault_spend_cap_exceeded" ? Promise.reject(error) : false);
        if (charged) accepted[i] = (accepted[i] ?? 0) + 100;
      }
    }
    expect(accepted).toEqual([1_100, 1_100]);
    expect(keybrake.keys().map((key) => key.label)).toEqual(expect.arrayContaining(["invoices-eu-2026-11", "usage.us-2026-11"]));
    for (const budgetName of ["", "a/b", "-dash-first", "x".repeat(121)]) {
      expect(() => new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, budgetName })).toThrow(/budgetName must be/);
    }
    expect(unhandled).toEqual([]);
  });
});

describe("a vault that does not share budgets", () => {
  it("gets no refresh: its one key serves to its expiry (a fresh key would be a whole cap more)", async () => {
    let minted = 0;
    const vault = createServer((_req, res) => {
      minted += 1;
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ vault_key: `vk_test_${minted}` }));
    });
    await new Promise<void>((resolve) => vault.listen(0, "127.0.0.1", () => resolve()));
    try {
      const keys = new KeybrakeKeyProvider({ baseUrl: `http://127.0.0.1:${(vault.address() as AddressInfo).port}`, apiKey: "kb_test", clock, keyLifetimeMs: 60_000 });
      expect(await keys.keyFor("2026-10", { expectedTotalCents: 500 })).toBe("vk_test_1");
      for (const step of [55_000, 3_600_000, 86_400_000]) {
        clock.at += step;
        expect(await keys.keyFor("2026-10", { expectedTotalCents: 500 })).toBe("vk_test_1");
        await settle();
      }
      expect(minted).toBe(1);
    } finally {
      vault.closeAllConnections();
      await new Promise<void>((resolve) => vault.close(() => resolve()));
    }
  });
});

describe("a vault key for a period that is not YYYY-MM (issue 30, defect 5)", () => {
  it('"unpriced" and a custom period get a key valid for a day from now, each with its own budget; no unhandled rejection', async () => {
    const keys = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock, keyLifetimeMs: 60_000 });
    for (const period of ["unpriced", "2026-W41"]) {
      const key = await keys.keyFor(period, { expectedTotalCents: 500 });
      const state = keybrake.keys().find((each) => each.vaultKey === key);
      expect(state?.expiresAt.getTime()).toBe(clock.at + 86_400_000);
      expect(state?.label).toBe(`chargeguard-${period}`);
      // Refresh ahead past 80% of the lifetime: no throw, no rejection left unhandled.
      clock.at += 50_000;
      expect(await keys.keyFor(period, { expectedTotalCents: 500 })).toBe(key);
      await settle();
    }
    expect(keyExpiry("unpriced", 7, clock.at).getTime()).toBe(clock.at + 86_400_000);
    expect(unhandled).toEqual([]);
  });

  it("a period the vault cannot name (empty, a path) is a clear VaultKeyError, as a rejection, never a throw or an unhandled one", async () => {
    const keys = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock });
    for (const period of ["", "../2026-10", "a b"]) {
      let answer: Promise<string> | undefined;
      expect(() => (answer = keys.keyFor(period, { expectedTotalCents: 500 }))).not.toThrow();
      await expect(answer).rejects.toThrow(VaultKeyError);
      await expect(answer).rejects.toThrow(/billing period/);
    }
    await settle();
    expect(unhandled).toEqual([]);
  });
});
