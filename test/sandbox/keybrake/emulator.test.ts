import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

let stripe: StripeEmulator;
let keybrake: KeybrakeEmulator;
const clock = new AdjustableClock();

beforeAll(async () => {
  stripe = await startStripeEmulator({ clock });
  keybrake = await startKeybrakeEmulator({ stripeApiBase: stripe.apiBase, clock });
});
afterAll(async () => {
  await keybrake?.stop();
  await stripe?.stop();
});

async function createKey(body: Record<string, unknown>, apiKey = keybrake.apiKey): Promise<Response> {
  return fetch(`${keybrake.baseUrl}/vault/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const validKey = () => ({
  vendor: "stripe",
  label: "test",
  daily_usd_cap: 5,
  allowed_endpoints: ["/v1/payment_intents", "/v1/customers"],
  expires_at: new Date(clock.now() + 3_600_000).toISOString(),
});

describe("Keybrake stand-in", () => {
  it("validates key creation and its account key", async () => {
    expect((await createKey(validKey(), "kb_wrong")).status).toBe(401);
    const bad = await createKey({ vendor: "paypal", daily_usd_cap: -1, allowed_endpoints: [], expires_at: "soon" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/vendor.*daily_usd_cap.*allowed_endpoints.*expires_at/);
  });

  it("forwards allowed calls to Stripe with the bound key, caps spend per day, and honours expiry", async () => {
    const created = (await (await createKey(validKey())).json()) as { vault_key: string };
    const client = new Stripe(created.vault_key, { host: "127.0.0.1", port: Number(new URL(keybrake.baseUrl).port), protocol: "http", maxNetworkRetries: 0 });
    const customer = await client.customers.create({ name: "proxied" });
    expect(customer.id).toMatch(/^cus_/);
    const pay = (amount: number, key: string) =>
      client.paymentIntents.create({ amount, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true }, { idempotencyKey: key });
    await pay(300, "k1");
    // A decline spends nothing.
    await expect(
      client.paymentIntents.create({ amount: 150, currency: "usd", customer: customer.id, payment_method: "pm_card_chargeDeclined", confirm: true, off_session: true }, { idempotencyKey: "k2" }),
    ).rejects.toThrow(/declined/);
    await pay(200, "k3");
    await expect(pay(1, "k4")).rejects.toMatchObject({ statusCode: 429, code: "vault_spend_cap_exceeded" });
    expect(keybrake.keys().find((k) => k.vaultKey === created.vault_key)?.spentCentsByDay).toEqual({ [new Date(clock.now()).toISOString().slice(0, 10)]: 500 });
    expect(stripe.ledger.paymentIntents(customer.id).filter((pi) => pi.status === "succeeded")).toHaveLength(2);
    clock.advance(30 * 60_000);
    await expect(client.refunds.create({ payment_intent: "pi_x" })).rejects.toMatchObject({ statusCode: 403, code: "vault_endpoint_not_allowed" });
    clock.advance(60 * 60_000);
    await expect(pay(1, "k5")).rejects.toMatchObject({ statusCode: 401, code: "vault_key_expired" });
  });

  it("refuses unknown keys", async () => {
    const client = new Stripe("vk_test_unknown", { host: "127.0.0.1", port: Number(new URL(keybrake.baseUrl).port), protocol: "http", maxNetworkRetries: 0 });
    await expect(client.customers.list()).rejects.toMatchObject({ statusCode: 401, code: "vault_key_unknown" });
  });
  it("keys created into one budget spend one cap (refreshes and replicas); the answer echoes the budget; a bad budget is named", async () => {
    const keyOf = async (budget: string) => {
      const answer = (await (await createKey({ ...validKey(), daily_usd_cap: 4, budget })).json()) as { vault_key: string; budget?: string };
      expect(answer.budget).toBe(budget);
      return new Stripe(answer.vault_key, { host: "127.0.0.1", port: Number(new URL(keybrake.baseUrl).port), protocol: "http", maxNetworkRetries: 0 });
    };
    const [first, second] = [await keyOf("period-a"), await keyOf("period-a")];
    const customer = await first.customers.create({ name: "budget" });
    const pay = (client: Stripe, amount: number, key: string) =>
      client.paymentIntents.create({ amount, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true }, { idempotencyKey: key });
    await pay(first, 300, "b1");
    await expect(pay(second, 200, "b2")).rejects.toMatchObject({ statusCode: 429, code: "vault_spend_cap_exceeded" });
    await pay(second, 100, "b3");
    // Another budget is another cap.
    await pay(await keyOf("period-b"), 400, "b4");
    const bad = await createKey({ ...validKey(), budget: "no spaces" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/budget/);
  });
});
