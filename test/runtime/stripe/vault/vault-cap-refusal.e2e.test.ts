// Issue 30, defect 4: a vault spend-cap refusal must classify as SpendCapExceeded in every flow, as the PaymentIntent
// flow's does, and never reach the rate governor as a Stripe 429 (which cut the account's rate toward the floor and
// kept the event waiting until its TTL). Each flow runs guarded and governed, as the consumer runs it, on both stores
// (PGlite, PostgreSQL), with the real SDK through the Keybrake emulator (the meter event through a vault that caps
// calls: the emulator's caps count money only). A refusal before anything was done leaves nothing reserved.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeFlow } from "../../../../runtime/flows/charge-flow.js";
import { flowContext, type FlowAdapter } from "../../../../runtime/flows/flow-adapter.js";
import { invoiceFlow } from "../../../../runtime/flows/invoice-flow.js";
import { meterEventFlow } from "../../../../runtime/flows/meter-event-flow.js";
import { paymentIntentFlow } from "../../../../runtime/flows/payment-intent-flow.js";
import { unobservedStripeCall } from "../../../../runtime/stripe/stripe-call.js";
import { runGuarded } from "../../../../runtime/guard/guarded-run.js";
import { Guard } from "../../../../runtime/guard/guard.js";
import { CircuitBreaker } from "../../../../runtime/resilience/circuit-breaker.js";
import { governedStripeCall } from "../../../../runtime/resilience/governed-stripe-call.js";
import { accountLimiter } from "../../../../runtime/resilience/fleet-share.js";
import { RateGovernor } from "../../../../runtime/resilience/rate-governor.js";
import { createStripeClient } from "../../../../runtime/stripe/client.js";
import { KeybrakeKeyProvider } from "../../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../../sandbox/stripe/index.js";
import { createScratchDatabase, postgresServerUrl } from "../../guard/databases.js";

let stripe: StripeEmulator;
let keybrake: KeybrakeEmulator;
let admin: Stripe;
/** A vault that caps calls, not money: every call over its cap answers as the emulator's proxy does. */
let cappedCalls: Server;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let pglite: PGlite;
const stores: Record<string, Guard> = {};

beforeAll(async () => {
  scratch = await createScratchDatabase(await postgresServerUrl());
  pglite = await PGlite.create();
  stores.pglite = await Guard.open({ pglite, periodCapCents: 1_000_000 });
  stores.postgres = await Guard.open({ databaseUrl: scratch.url, periodCapCents: 1_000_000 });
  stripe = await startStripeEmulator();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: stripe.apiBase });
  admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
  cappedCalls = createServer((_req, res) => {
    const body = JSON.stringify({ error: { type: "invalid_request_error", code: "vault_spend_cap_exceeded", message: "over the vault key's cap" } });
    res.writeHead(429, { "content-type": "application/json", "stripe-should-retry": "false" }).end(body);
  });
  await new Promise<void>((resolve) => cappedCalls.listen(0, "127.0.0.1", () => resolve()));
});
afterAll(async () => {
  await Promise.all(Object.values(stores).map((guard) => guard.close()));
  await pglite?.close();
  await scratch?.drop();
  cappedCalls.closeAllConnections();
  await new Promise<void>((resolve) => cappedCalls.close(() => resolve()));
  await keybrake?.stop();
  await stripe?.stop();
});

const period = new Date().toISOString().slice(0, 7);
const allowed = ["/v1/payment_intents", "/v1/charges", "/v1/invoices", "/v1/invoiceitems", "/v1/billing/meter_events"];

/** A vault key capped at 1,100 cents: every flow below asks for 2,000. */
async function cappedClient(): Promise<Stripe> {
  const keys = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, allowedEndpoints: allowed });
  return createStripeClient({ apiKey: await keys.keyFor(period, { expectedTotalCents: 1_000 }), apiBase: keybrake.baseUrl, timeoutMs: 5_000, maxNetworkRetries: 0 });
}

/**
 * Runs the flow as the consumer does: claimed under the guard with its spend, every Stripe call through the governor
 * and Stripe's breaker within the lease. Answers the guard's outcome, the account's rate after, how long it took, and
 * what the run added to the period's committed spend (reserved + billed).
 */
async function governedRun<R>(store: Guard, flow: FlowAdapter<R>, client: Stripe, request: R, key: string) {
  const governor = new RateGovernor({ ceilingPerSecond: 50 });
  const breaker = new CircuitBreaker({ dependency: "stripe", probe: async () => {} });
  const governance = { governor, breaker, now: () => performance.now(), callWorstCaseMs: 500 };
  const started = performance.now();
  const before = (await store.spend(period, "usd")).committedCents;
  try {
    const outcome = await runGuarded(
      store,
      { scope: "cap", key: { usage: key }, payload: request as Record<string, unknown>, spend: { period, currency: "usd", amount: 2_000 }, flow: flow.name, idempotencyKey: key },
      (context) => {
        const stripeCall = governedStripeCall(unobservedStripeCall, governance, Date.now() + 3_000);
        return flow.execute(client, request, flowContext(context, Date.now(), undefined, stripeCall));
      },
      { classify: (error) => flow.classify(error, request, key) },
    );
    return { outcome, rate: governor.rateOf(accountLimiter), ms: performance.now() - started, added: (await store.spend(period, "usd")).committedCents - before };
  } finally {
    breaker.close();
    await governor.close();
  }
}

for (const storeName of ["pglite", "postgres"]) describe(`a vault spend-cap refusal is SpendCapExceeded in every flow, never a Stripe 429 for the governor (issue 30, defect 4), on ${storeName}`, () => {
  const store = () => stores[storeName] as Guard;

  it("payment-intent flow", async () => {
    const customer = await admin.customers.create({ name: "pi" });
    const request = { amount: 2_000, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { idempotency_key: `cap-pi-${storeName}` } };
    const run = await governedRun(store(), paymentIntentFlow, await cappedClient(), request as never, `cap-pi-${storeName}`);
    expect(run.outcome).toMatchObject({ kind: "cap-exceeded", reason: expect.stringContaining("SpendCapExceeded") });
    expect(run.rate).toBe(50);
    expect(run.added).toBe(0);
  });

  it("charge flow", async () => {
    const customer = await admin.customers.create({ name: "charge", source: "tok_visa" } as Stripe.CustomerCreateParams);
    const request = { amount: 2_000, currency: "usd", customer: customer.id, metadata: { idempotency_key: `cap-charge-${storeName}` } };
    const run = await governedRun(store(), chargeFlow, await cappedClient(), request, `cap-charge-${storeName}`);
    expect(run.outcome).toMatchObject({ kind: "cap-exceeded", reason: expect.stringContaining("SpendCapExceeded") });
    expect(run.rate).toBe(50);
    expect(run.ms).toBeLessThan(1_000);
    expect(run.added).toBe(0);
  });

  it("invoice flow", async () => {
    const customer = await admin.customers.create({ invoice_settings: { default_payment_method: "pm_card_visa" } });
    const request = { customer: customer.id, currency: "usd", items: [{ amount: 2_000 }] };
    const run = await governedRun(store(), invoiceFlow, await cappedClient(), request, `cap-invoice-${storeName}`);
    expect(run.outcome).toMatchObject({ kind: "cap-exceeded", reason: expect.stringContaining("SpendCapExceeded") });
    expect(run.rate).toBe(50);
    expect(run.ms).toBeLessThan(1_000);
  });

  it("meter-event flow", async () => {
    const client = createStripeClient({ apiKey: "vk_test_capped", apiBase: `http://127.0.0.1:${(cappedCalls.address() as AddressInfo).port}`, timeoutMs: 5_000, maxNetworkRetries: 0 });
    const request = { eventName: "calls", stripeCustomerId: "cus_x", value: 3, timestamp: Math.floor(Date.now() / 1000) };
    const run = await governedRun(store(), meterEventFlow, client, request, `cap-meter-${storeName}`);
    expect(run.outcome).toMatchObject({ kind: "cap-exceeded", reason: expect.stringContaining("SpendCapExceeded") });
    expect(run.rate).toBe(50);
    expect(run.ms).toBeLessThan(1_000);
    expect(run.added).toBe(0);
  });
});
