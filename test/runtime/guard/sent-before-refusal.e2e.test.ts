// Issue 41, defect 1: a charge Stripe made was forgotten. The guard deleted a first attempt's record (and gave its
// reservation back) when the run ended in "nothing sent" or a vault refusal, judged from the last call's error; but
// the Stripe SDK had already sent the request inside that call: with the template's client options
// (DEFAULT_STRIPE_BUDGET: 20 s timeout, maxNetworkRetries 1) it retries a timed-out try, and it retries a closed
// connection once with any setting. When that retry met a 429 until the lease's end, or the vault's cap, the record
// went although the PaymentIntent succeeded, and a resubmission charged again. Each trigger here runs as the consumer
// runs a flow (runGuarded, governed Stripe calls, the key window), on PGlite and PostgreSQL, against the sandbox's
// Stripe with its fault injection, and is checked AT THE EMULATOR: the money object exists, so the record and its
// reservation stay, and a later resubmission replays it instead of charging again.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flowContext, stripeKeyWindowMs, type FlowAdapter } from "../../../runtime/flows/flow-adapter.js";
import { meterEventFlow } from "../../../runtime/flows/meter-event-flow.js";
import { paymentIntentFlow } from "../../../runtime/flows/payment-intent-flow.js";
import { unobservedStripeCall } from "../../../runtime/stripe/stripe-call.js";
import { runGuarded } from "../../../runtime/guard/guarded-run.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { CircuitBreaker } from "../../../runtime/resilience/circuit-breaker.js";
import { governedStripeCall } from "../../../runtime/resilience/governed-stripe-call.js";
import { RateGovernor } from "../../../runtime/resilience/rate-governor.js";
import { createStripeClient } from "../../../runtime/stripe/client.js";
import { KeybrakeKeyProvider } from "../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { DEFAULT_STRIPE_BUDGET } from "../../../tuning/queue-tuning.js";
import { openGuardPair } from "./databases.js";

/** What the template ships (templates/files: queue-budget.json holds this default without --stack). */
const shipped = DEFAULT_STRIPE_BUDGET;
let stripe: StripeEmulator;
let keybrake: KeybrakeEmulator;
let admin: Stripe;
let guards: Awaited<ReturnType<typeof openGuardPair>>;
const stores: Record<string, Guard> = {};
const period = new Date().toISOString().slice(0, 7);

beforeAll(async () => {
  guards = await openGuardPair({ periodCapCents: 1_000_000 });
  Object.assign(stores, guards.stores);
  stripe = await startStripeEmulator();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: stripe.apiBase });
  admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
});
afterAll(async () => {
  await guards?.close();
  await keybrake?.stop();
  await stripe?.stop();
});

/** Runs the flow as the consumer does (guardedCharge): claimed with its spend, governed calls within `leaseMs`. */
async function consumerRun<R>(store: Guard, flow: FlowAdapter<R>, client: Stripe, request: R, key: string, leaseMs: number) {
  const governor = new RateGovernor({ ceilingPerSecond: 50 });
  const breaker = new CircuitBreaker({ dependency: "stripe", probe: async () => {} });
  const governance = { governor, breaker, now: () => performance.now(), callWorstCaseMs: 500 };
  try {
    return await runGuarded(
      store,
      { scope: "sent", key: { usage: key }, payload: request as Record<string, unknown>, spend: { period: spendPeriod(key), currency: "usd", amount: 1_000 }, flow: flow.name, idempotencyKey: key },
      (context) => {
        const stripeCall = governedStripeCall(unobservedStripeCall, governance, Date.now() + leaseMs);
        return flow.execute(client, request, flowContext(context, Date.now(), stripeKeyWindowMs, stripeCall));
      },
      { classify: (error) => flow.classify(error, request, key), keyWindowMs: stripeKeyWindowMs },
    );
  } finally {
    breaker.close();
    await governor.close();
  }
}

/** Each case reserves in a period of its own: the cases run side by side. */
const spendPeriod = (key: string) => `p-${key}`;
const committed = async (store: Guard, key: string) => (await store.spend(spendPeriod(key), "usd")).committedCents;
const direct = () => createStripeClient({ apiKey: "rk_test_sandbox", apiBase: stripe.apiBase, ...shipped });
const intentsUnder = (customer: string, key: string) => stripe.ledger.paymentIntents(customer).filter((intent) => intent.metadata?.idempotency_key === key);

async function piRequest(key: string) {
  const customer = await admin.customers.create({ name: key });
  return { amount: 1_000, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { idempotency_key: key } };
}

for (const storeName of ["pglite", "postgres"]) describe.concurrent(`a try the SDK sent keeps the record, on ${storeName} (issue 41, defect 1)`, () => {
  const store = () => stores[storeName] as Guard;

  it("a timed-out try Stripe committed, its SDK retry then 429 until the lease ends: kept, reserved, one PaymentIntent", async () => {
    const key = `sent-timeout-429-${storeName}`;
    const request = await piRequest(key);
    const mine = (r: { idempotencyKey: string | undefined }) => r.idempotencyKey === key;
    const hung = stripe.faults.inject({ action: "commitThenHang", method: "POST", path: "/v1/payment_intents", times: 1, when: mine });
    const limited = stripe.faults.inject({ action: "rateLimit", method: "POST", path: "/v1/payment_intents", when: (r) => mine(r) && hung.hits > 0 });
    const outcome = await consumerRun(store(), paymentIntentFlow, direct(), request, key, shipped.timeoutMs + 2_000);
    limited.remove();
    expect(hung.hits).toBe(1);
    expect(limited.hits).toBeGreaterThan(0);
    expect(outcome.kind).toBe("unknown");
    const [intent] = intentsUnder(request.customer, key);
    expect(intent?.status).toBe("succeeded");
    expect((await store().get("sent", { usage: key }))?.state).toBe("pending");
    expect(await committed(store(), key)).toBe(1_000);
    // The resubmission (the dead letter's, the next day's): Stripe replays the same PaymentIntent, nothing new.
    expect(await consumerRun(store(), paymentIntentFlow, direct(), request, key, 5_000)).toMatchObject({ kind: "done", objectId: intent?.id });
    expect(intentsUnder(request.customer, key)).toHaveLength(1);
  }, 60_000);

  it("a connection closed after Stripe committed, its retry refused by the vault's cap: kept, reserved, charged once", async () => {
    const key = `sent-drop-vault-${storeName}`;
    const request = await piRequest(key);
    const keys = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, allowedEndpoints: ["/v1/payment_intents"] });
    const vaultKey = await keys.keyFor(`${period}-${storeName}`, { expectedTotalCents: 1_000 });
    const client = createStripeClient({ apiKey: vaultKey, apiBase: keybrake.baseUrl, ...shipped });
    // While the SDK backs off before its retry, another billing spends what the vault had left.
    const other = await piRequest(`${key}-other`);
    const dropped = stripe.faults.inject({
      action: "commitThenDrop", method: "POST", path: "/v1/payment_intents", times: 1,
      when: (r) => {
        if (r.idempotencyKey !== key) return false;
        setTimeout(() => void client.paymentIntents.create({ ...other, amount: 600 }, { idempotencyKey: `${key}-other` }), 50);
        return true;
      },
    });
    const outcome = await consumerRun(store(), paymentIntentFlow, client, request, key, 10_000);
    expect(dropped.hits).toBe(1);
    expect(outcome).toMatchObject({ kind: "cap-exceeded", reason: expect.stringContaining("SpendCapExceeded") });
    const [intent] = intentsUnder(request.customer, key);
    expect(intent?.status).toBe("succeeded");
    expect((await store().get("sent", { usage: key }))?.state).toBe("pending");
    expect(await committed(store(), key)).toBe(1_000);
    // Resubmitted: still refused by the vault (it is spent), and nothing more at Stripe for the key.
    expect((await consumerRun(store(), paymentIntentFlow, client, request, key, 5_000)).kind).not.toBe("done");
    expect(intentsUnder(request.customer, key)).toHaveLength(1);
    expect((await store().get("sent", { usage: key }))?.state).toBe("pending");
  }, 60_000);

  it("meter events: a connection closed after Stripe recorded the event, its retry 429 until the lease ends: kept, one event", async () => {
    const key = `sent-meter-${storeName}`;
    const request = { eventName: "calls", stripeCustomerId: "cus_meter", value: 3, timestamp: Math.floor(Date.now() / 1000) };
    const mine = (r: { idempotencyKey: string | undefined }) => r.idempotencyKey === key;
    const dropped = stripe.faults.inject({ action: "commitThenDrop", method: "POST", path: "/v1/billing/meter_events", times: 1, when: mine });
    const limited = stripe.faults.inject({ action: "rateLimit", method: "POST", path: "/v1/billing/meter_events", when: (r) => mine(r) && dropped.hits > 0 });
    const outcome = await consumerRun(store(), meterEventFlow, direct(), request, key, 2_500);
    limited.remove();
    expect(outcome.kind).toBe("unknown");
    expect(stripe.ledger.meterEvents().filter((event) => event.identifier === key)).toHaveLength(1);
    expect((await store().get("sent", { usage: key }))?.state).toBe("pending");
    expect(await committed(store(), key)).toBe(1_000);
    // Resubmitted: the duplicate identifier is Stripe saying it has it, recorded done; still one event.
    expect((await consumerRun(store(), meterEventFlow, direct(), request, key, 5_000)).kind).toBe("done");
    expect(stripe.ledger.meterEvents().filter((event) => event.identifier === key)).toHaveLength(1);
  }, 60_000);
});
