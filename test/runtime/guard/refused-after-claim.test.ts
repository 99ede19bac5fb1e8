// Every way out of a claim ends the record or hands it to recovery. A refusal after the claim (the vault's spend cap,
// the vault refusing the key, a request found invalid late, Stripe refusing the request) used to leave the record
// pending and reserved for ever while its message went to the dead-letter queue. On both stores (PGlite, and real
// PostgreSQL as the consumer runs it: behind the database's breaker, whose wrapper once dropped `forget`, so a refused
// billing stayed pending, reserved, and the reconciler would have charged it), with the flows' own error classification.
import { PGlite } from "@electric-sql/pglite";
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../../runtime/core/canonical-json.js";
import { GuardInputError, SpendCapExceededError, VaultKeyError } from "../../../runtime/core/errors.js";
import { stripeErrorClass } from "../../../runtime/flows/stripe-error-class.js";
import type { GuardStore } from "../../../runtime/guard/guard-store.js";
import { runGuarded, type GuardRunInput, type GuardWork } from "../../../runtime/guard/guarded-run.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { CircuitBreaker } from "../../../runtime/resilience/circuit-breaker.js";
import { watchDatabase } from "../../../runtime/resilience/database-watch.js";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";

const refusals: Array<[path: string, error: () => Error, outcome: string]> = [
  ["the vault's spend cap (429 from the proxy)", () => new SpendCapExceededError("vault_spend_cap_exceeded: daily cap reached"), "cap-exceeded"],
  ["the vault refusing the period's key", () => new VaultKeyError("vault_key_expired: key for 2026-10 expired"), "invalid"],
  ["validation discovered late (the flow's check)", () => new GuardInputError("items.0.amount must be a positive integer in minor units"), "invalid"],
  ["Stripe refusing the request (400)", () => new Stripe.errors.StripeInvalidRequestError({ type: "invalid_request_error", message: "No such customer: 'cus_missing'" }), "invalid"],
];

interface Backend {
  store: GuardStore;
  input(): GuardRunInput;
  /** The record's state, or undefined when there is none. */
  state(input: GuardRunInput): Promise<string | undefined>;
  /** What the record holds of its period's cap: reserved or charged. */
  reserved(input: GuardRunInput): Promise<number>;
  stale(input: GuardRunInput): Promise<boolean>;
}

let db: PGlite;
let guard: Guard;
let pgGuard: Guard;
let breaker: CircuitBreaker;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
const clock = new AdjustableClock();
beforeAll(async () => {
  db = await PGlite.create();
  guard = await Guard.open({ pglite: db, clock, leaseMs: 30_000, periodCapCents: 1_000_000 });
  scratch = await createScratchDatabase(await postgresServerUrl());
  pgGuard = await Guard.open({ databaseUrl: scratch.url, clock, leaseMs: 30_000, periodCapCents: 1_000_000 });
  breaker = new CircuitBreaker({ dependency: "database", probe: async () => {}, log: () => {} });
});
afterAll(async () => {
  breaker?.close();
  await guard?.close();
  await pgGuard?.close();
  await scratch?.drop();
  await db?.close();
});

const id = () => randomUUID().slice(0, 8);
const on = (store: GuardStore, records: () => Guard, input: () => GuardRunInput): Backend => ({
  store,
  input,
  state: async (run) => (await records().get(run.scope, run.key))?.state,
  reserved: async (run) => (await records().spend(run.spend!.period, "usd")).committedCents,
  stale: async (run) => (await records().stalePending({ limit: 10_000 })).some((record) => canonicalJson(record.key) === canonicalJson(run.key)),
});
const invoice = (): GuardRunInput => ({ scope: "usage", flow: "invoice", key: { usageId: `u-${id()}` }, payload: { customer: "cus_a" }, spend: { period: `2026-10-${id()}`, currency: "usd", amount: 700 } });
const paymentIntent = (): GuardRunInput => {
  const period = `2026-${id()}`;
  return { scope: "billing", flow: "payment-intent", key: { customerId: `c-${id()}`, billingPeriod: period }, payload: { amount: 700 }, spend: { period, currency: "usd", amount: 700 } };
};
const backends: Record<string, () => Backend> = {
  "PGlite (an invoice)": () => on(guard, () => guard, invoice),
  "PGlite (the default PaymentIntent)": () => on(guard, () => guard, paymentIntent),
  "PostgreSQL behind the database breaker (an invoice)": () => on(watchDatabase(pgGuard as GuardStore, breaker), () => pgGuard, invoice),
  "PostgreSQL behind the database breaker (the default PaymentIntent)": () => on(watchDatabase(pgGuard as GuardStore, breaker), () => pgGuard, paymentIntent),
};

const throwing = (error: () => Error): GuardWork => () => Promise.reject(error());
const options = { classify: stripeErrorClass };

describe.each(Object.keys(backends))("a refusal after the claim, on %s", (name) => {
  const backend = () => backends[name]!();

  it.each(refusals)("%s on a first attempt ends the record: removed, reservation given back, the next run starts afresh", async (_path, error, kind) => {
    const { store, input, state, reserved, stale } = backend();
    const run = input();
    expect(await runGuarded(store, run, throwing(error), options)).toMatchObject({ kind });
    expect(await state(run)).toBeUndefined();
    expect(await reserved(run)).toBe(0);
    expect(await stale(run)).toBe(false);
    // Resubmitted once the operator fixed the cause: a fresh first attempt, charged once.
    expect(await runGuarded(store, run, async () => ({ status: "done", objectId: "pi_after_fix" }), options)).toMatchObject({ kind: "done" });
    expect(await reserved(run)).toBe(700);
  });

  it.each(refusals)("%s after an unknown attempt hands the record to recovery: pending, reserved, stale for the reconciler", async (_path, error, kind) => {
    const { store, input, state, reserved, stale } = backend();
    const run = input();
    // The first attempt timed out: Stripe may hold a charge under the key, so the record must not be forgotten. These
    // runs give no key window (GuardRunOptions.keyWindowMs): arbitrary work, whose 400 may not come from the keyed
    // call. The consumer's flows give it, and Stripe's 400 then forgets (refused-under-key-suite.ts).
    const timeout = new Stripe.errors.StripeConnectionError({ type: "api_error", message: "Request timed out" });
    expect(await runGuarded(store, run, throwing(() => timeout), options)).toMatchObject({ kind: "unknown" });
    expect(await runGuarded(store, run, throwing(error), options)).toMatchObject({ kind });
    expect(await state(run)).toBe("pending");
    expect(await reserved(run)).toBe(700);
    expect(await stale(run)).toBe(true);
  });

  it("an idempotency conflict (an earlier request under the key) hands the record to recovery", async () => {
    const { store, input, state, stale } = backend();
    const run = input();
    const conflict = new Stripe.errors.StripeIdempotencyError({ type: "idempotency_error", message: "Keys for idempotent requests can only be used with the same parameters" });
    expect(await runGuarded(store, run, throwing(() => conflict), options)).toMatchObject({ kind: "invalid", reason: "StripeIdempotencyConflict" });
    expect(await state(run)).toBe("pending");
    expect(await stale(run)).toBe(true);
  });
});

describe("a refusal after a recovery point (guard_records)", () => {
  it("hands the record to recovery: the recorded Stripe object is kept for the reconciler", async () => {
    const { store, input, state, reserved, stale } = backends["PGlite (an invoice)"]!();
    const run = input();
    const outcome = await runGuarded(
      store,
      run,
      async (context) => {
        await context.step("invoice", async () => "in_draft_1");
        throw new SpendCapExceededError("vault_spend_cap_exceeded: daily cap reached");
      },
      options,
    );
    expect(outcome).toMatchObject({ kind: "cap-exceeded" });
    expect(await state(run)).toBe("pending");
    expect((await guard.get(run.scope, run.key))?.steps).toEqual({ invoice: "in_draft_1" });
    expect(await reserved(run)).toBe(700);
    expect(await stale(run)).toBe(true);
  });
});
