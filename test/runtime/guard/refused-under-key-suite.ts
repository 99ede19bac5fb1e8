// A billing whose first attempt met an unknown outcome (a Stripe 500) and whose next attempt Stripe refuses with a
// 400 under the same idempotency key: inside Stripe's 24 h key window, with no recovery point, that refusal proves
// Stripe holds nothing for the key (a committed first request would be replayed, one still executing answers 409),
// so the guard forgets the record and gives its reservation back, at any attempt. Anything that proves less keeps
// it pending and reserved for the reconciler and an operator: past the window, a recorded step, an idempotency
// error, a vault's refusal. The real Stripe SDK against the sandbox's emulator (its front-door 500 is not saved
// under the key, so the retry executes), the consumer's own flow, classification and key window, written once and
// run on PGlite and on real PostgreSQL (behind the database's breaker, as the consumer runs it).
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndpointNotAllowedError, SpendCapExceededError } from "../../../runtime/core/errors.js";
import { flowContext, stripeKeyWindowMs } from "../../../runtime/flows/flow-adapter.js";
import { paymentIntentFlow } from "../../../runtime/flows/payment-intent-flow.js";
import { Guard, type GuardOptions } from "../../../runtime/guard/guard.js";
import type { GuardStore } from "../../../runtime/guard/guard-store.js";
import { runGuarded, type GuardOutcome, type GuardRunInput, type GuardWork } from "../../../runtime/guard/guarded-run.js";
import { stableKey } from "../../../runtime/core/stable-key.js";
import { buildPaymentIntentParams, type PaymentIntentRequest } from "../../../runtime/stripe/payment-intent-params.js";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

export interface RefusedUnderKeyBackend {
  connection(): Partial<GuardOptions>;
  /** The store as the consumer runs it on this database; default the guard itself. */
  port?(guard: Guard): GuardStore;
}

interface Billing {
  input: GuardRunInput;
  request: PaymentIntentRequest;
  period: string;
}

export function describeRefusedUnderKey(name: string, backend: () => RefusedUnderKeyBackend): void {
  describe(`a Stripe 400 after an unknown attempt, on ${name}`, () => {
    const clock = new AdjustableClock();
    let emulator: StripeEmulator;
    let stripe: Stripe;
    let guard: Guard;
    let store: GuardStore;

    beforeAll(async () => {
      emulator = await startStripeEmulator({ clock });
      stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0, timeout: 5_000 });
      const db = backend();
      guard = await Guard.open({ ...db.connection(), clock, leaseMs: 30_000, periodCapCents: 1_000_000 });
      store = db.port?.(guard) ?? guard;
    });
    afterAll(async () => {
      await guard?.close();
      await emulator?.stop();
    });

    /** A billing as the consumer builds it (identity, key, request), each in its own period so its spend is its own. */
    const billing = (stripeCustomerId: string, customerId = `c-${randomUUID().slice(0, 8)}`, period = `2026-${randomUUID().slice(0, 8)}`): Billing => {
      const event = { customerId, stripeCustomerId, paymentMethodId: "pm_card_visa", billingPeriod: period, amountCents: 700, currency: "usd" };
      const identity = { customerId, billingPeriod: period, amountCents: 700, currency: "usd" };
      const idempotencyKey = stableKey(identity, { scope: "billing" });
      const request = buildPaymentIntentParams(event, idempotencyKey);
      const input: GuardRunInput = {
        scope: "billing",
        flow: "payment-intent",
        key: { customerId, billingPeriod: period },
        payload: { ...request },
        spend: { period, currency: "usd", amount: 700 },
        idempotencyKey,
      };
      return { input, request, period };
    };
    /** One delivery's attempt as the consumer's handler makes it (guarded-charge.ts): the flow under the key window. */
    const attempt = (bill: Billing, work?: GuardWork): Promise<GuardOutcome> =>
      runGuarded(store, bill.input, work ?? ((context) => paymentIntentFlow.execute(stripe, bill.request, flowContext(context, clock.now()))), {
        classify: (error) => paymentIntentFlow.classify(error, bill.request, bill.request.metadata.idempotency_key),
        now: () => clock.now(),
        keyWindowMs: stripeKeyWindowMs,
      });
    /** Stripe's front door answers 500 once: not saved under the key, so the next attempt executes. */
    const frontDoor500 = () => emulator.faults.inject({ method: "POST", path: "/v1/payment_intents", times: 1, action: "serverError", saved: false });
    const reserved = async (bill: Billing) => (await guard.periodSpend(bill.period, "usd")).reservedCents;
    const stale = async (bill: Billing) => (await guard.stalePending({ limit: 10_000 })).some((record) => record.key["customerId"] === bill.input.key["customerId"]);
    const unknownAttempt = async (bill: Billing) => {
      frontDoor500();
      expect(await attempt(bill)).toMatchObject({ kind: "unknown" });
      expect(await guard.get(bill.input.scope, bill.input.key)).toMatchObject({ state: "pending", attempts: 1 });
      expect(await reserved(bill)).toBe(700);
    };
    const expectHeld = async (bill: Billing) => {
      expect(await guard.get(bill.input.scope, bill.input.key)).toMatchObject({ state: "pending" });
      expect(await reserved(bill)).toBe(700);
      expect(await stale(bill)).toBe(true);
    };

    it("inside the key window: forgotten at the second attempt, its reservation back; billed again only once valid", async () => {
      const bill = billing("cus_missing");
      await unknownAttempt(bill);
      const refused = await attempt(bill);
      expect(refused).toMatchObject({ kind: "invalid", reason: "StripeInvalidRequest", detail: expect.stringContaining("No such customer") });
      expect(await guard.get(bill.input.scope, bill.input.key)).toBeUndefined();
      expect(await guard.periodSpend(bill.period, "usd")).toMatchObject({ reservedCents: 0, chargedCents: 0 });
      expect(await stale(bill)).toBe(false);
      // Redelivered as it was: refused again, forgotten again, nothing reserved or billed.
      expect(await attempt(bill)).toMatchObject({ kind: "invalid", reason: "StripeInvalidRequest" });
      expect(await guard.get(bill.input.scope, bill.input.key)).toBeUndefined();
      expect(await reserved(bill)).toBe(0);
      // Resubmitted once the operator fixed the customer (same identity, same key): a fresh record, billed once.
      const customer = await stripe.customers.create({ name: "fixed" });
      const fixed = billing(customer.id, String(bill.input.key["customerId"]), bill.period);
      expect(fixed.input.idempotencyKey).toBe(bill.input.idempotencyKey);
      expect(await attempt(fixed)).toMatchObject({ kind: "done" });
      expect(emulator.ledger.paymentIntents(customer.id).filter((intent) => intent.status === "succeeded")).toHaveLength(1);
      expect(await guard.periodSpend(bill.period, "usd")).toMatchObject({ reservedCents: 0, chargedCents: 700 });
    });

    it("past the key window: held for an operator (pending, reserved, stale for the reconciler)", async () => {
      const bill = billing("cus_missing");
      await unknownAttempt(bill);
      clock.advance(stripeKeyWindowMs + 60_000);
      expect(await attempt(bill)).toMatchObject({ kind: "invalid", reason: "StripeInvalidRequest" });
      await expectHeld(bill);
    });

    it("with a recovery point recorded: held (Stripe holds that step's object)", async () => {
      const customer = await stripe.customers.create({ name: "stepped" });
      const bill = billing("cus_missing");
      let calls = 0;
      // A first step Stripe did (an invoice), then the keyed call: 500 on the first attempt, 400 on the second.
      const work: GuardWork = async (context) => {
        calls++;
        await context.step("invoice", async (key) => (await stripe.invoices.create({ customer: customer.id }, { idempotencyKey: key })).id!);
        return paymentIntentFlow.execute(stripe, bill.request, flowContext(context, clock.now()));
      };
      frontDoor500();
      expect(await attempt(bill, work)).toMatchObject({ kind: "unknown" });
      expect(await attempt(bill, work)).toMatchObject({ kind: "invalid", reason: "StripeInvalidRequest" });
      expect(calls).toBe(2);
      expect((await guard.get(bill.input.scope, bill.input.key))?.steps).toEqual({ invoice: expect.stringMatching(/^in_/) });
      await expectHeld(bill);
    });

    it("an idempotency error (the first request reached Stripe with other parameters): held, and Stripe does hold a charge", async () => {
      const customer = await stripe.customers.create({ name: "conflict" });
      const bill = billing(customer.id);
      // The first attempt's charge commits at Stripe, its answer never comes (the client times out); the next sends
      // other parameters under the key.
      emulator.faults.inject({ method: "POST", path: "/v1/payment_intents", times: 1, action: "commitThenHang" });
      const hasty = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0, timeout: 300 });
      const work: GuardWork = (context) =>
        paymentIntentFlow.execute(hasty, { ...bill.request, amount: bill.request.amount + (context.attempt - 1) }, flowContext(context, clock.now()));
      expect(await attempt(bill, work)).toMatchObject({ kind: "unknown" });
      expect(await attempt(bill, work)).toMatchObject({ kind: "invalid", reason: "StripeIdempotencyConflict" });
      expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(1);
      await expectHeld(bill);
    });

    it.each([
      ["the vault's spend cap", () => new SpendCapExceededError("vault_spend_cap_exceeded: daily cap reached"), "cap-exceeded"],
      ["the vault refusing the endpoint", () => new EndpointNotAllowedError("endpoint_not_allowed: POST /v1/payment_intents"), "invalid"],
    ])("%s after an unknown attempt: held (the vault never asked Stripe, so it proves nothing)", async (_path, refusal, kind) => {
      const bill = billing("cus_missing");
      await unknownAttempt(bill);
      expect(await attempt(bill, () => Promise.reject(refusal()))).toMatchObject({ kind });
      await expectHeld(bill);
    });
  });
}
