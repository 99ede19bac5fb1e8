// The guard primitive (Guard.run over guard_records), written once and run on PGlite and on real PostgreSQL.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Guard, type GuardOptions } from "../../../runtime/guard/guard.js";
import type { GuardErrorClass, GuardRunInput } from "../../../runtime/guard/guarded-run.js";
import { AdjustableClock } from "../../../sandbox/clock.js";

export interface GuardRunBackend {
  connection(): Partial<GuardOptions>;
  competingGuards?: number;
}

const leaseMs = 30_000;

export function describeGuardRun(name: string, backend: () => GuardRunBackend): void {
  describe(`Guard.run on ${name}`, () => {
    const clock = new AdjustableClock();
    let guard: Guard;
    let db: GuardRunBackend;
    const id = () => randomUUID().slice(0, 8);
    const input = (overrides: Partial<GuardRunInput> = {}): GuardRunInput => ({
      scope: "usage",
      flow: "invoice",
      key: { usageId: `u-${id()}` },
      payload: { customer: "cus_a", amount: 700 },
      spend: { period: `2026-10-${id()}`, currency: "usd", amount: 700 },
      ...overrides,
    });

    beforeAll(async () => {
      db = backend();
      guard = await Guard.open({ ...db.connection(), clock, leaseMs, periodCaps: { jpy: 1_500 }, periodCapCents: 1_000 });
    });
    afterAll(async () => {
      await guard?.close();
    });

    it("runs the work once, records it done with its object, and answers already-done on replay without calling again", async () => {
      const run = input();
      let calls = 0;
      const first = await guard.run(run, async ({ idempotencyKey, attempt }) => {
        calls++;
        expect(attempt).toBe(1);
        return { status: "done", objectId: `in_${idempotencyKey.slice(-6)}`, result: { status: "paid" } };
      });
      expect(first).toMatchObject({ kind: "done", objectId: expect.stringMatching(/^in_/) });
      const again = await guard.run(run, async () => {
        calls++;
        return { status: "done", objectId: "in_other" };
      });
      expect(again).toEqual({ kind: "already-done", objectId: first.kind === "done" ? first.objectId : "", idempotencyKey: first.idempotencyKey });
      expect(calls).toBe(1);
      expect(await guard.get(run.scope, run.key)).toMatchObject({ state: "done", result: { status: "paid" }, spend: run.spend, lockOwner: null });
      expect(await guard.spend(run.spend!.period, "usd")).toEqual({ capCents: 1_000, committedCents: 700 });
    });

    it("refuses the same identity with another payload, spend or flow: mismatch, and the work is not called", async () => {
      const run = input();
      await guard.run(run, async () => ({ status: "done", objectId: "ch_1" }));
      const never = async () => {
        throw new Error("must not be called");
      };
      // The refusal names what differs, recorded -> asked, and what to do: another billing needs its own identity.
      for (const [other, differs] of [
        [{ ...run, payload: { ...run.payload, amount: 701 } }, /with other parameters \(payload\.amount 700 -> 701\);/],
        [{ ...run, spend: { ...run.spend!, amount: 701 } }, /with other parameters \(spend\.amount 700 -> 701\);/],
        [{ ...run, flow: "charge" }, /with other parameters \(flow invoice -> charge(, idempotencyKey \S+ -> \S+)?\);/],
      ] as const) {
        const outcome = await guard.run(other, never);
        expect(outcome).toMatchObject({ kind: "mismatch", reason: expect.stringMatching(differs) });
        expect(outcome).toMatchObject({ reason: expect.stringMatching(/give it its own identity \(e\.g\. the usage event's own id\)/) });
      }
    });

    it("resumes a multi-step flow from its recovery points: a recorded step is not called again, each step has its own key", async () => {
      const run = input();
      const called: string[] = [];
      const keys: string[] = [];
      let failPay = true;
      const work = async ({ step }: Parameters<Parameters<Guard["run"]>[1]>[0]) => {
        const invoice = await step("create-invoice", async (key) => {
          called.push("create-invoice");
          keys.push(key);
          return "in_123";
        });
        await step("add-item", async (key) => {
          called.push("add-item");
          keys.push(key);
          return "ii_456";
        });
        const paid = await step("pay", async (key) => {
          called.push("pay");
          keys.push(key);
          if (failPay) throw new Error("socket hang up");
          return invoice;
        });
        return { status: "done" as const, objectId: paid };
      };
      const first = await guard.run(run, work);
      expect(first).toMatchObject({ kind: "unknown", detail: expect.stringMatching(/socket hang up/) });
      const pending = await guard.get(run.scope, run.key);
      expect(pending).toMatchObject({ state: "pending", steps: { "create-invoice": "in_123", "add-item": "ii_456" }, lockedUntil: null });
      failPay = false;
      const second = await guard.run(run, work);
      expect(second).toMatchObject({ kind: "done", objectId: "in_123" });
      expect(called).toEqual(["create-invoice", "add-item", "pay", "pay"]);
      const recordKey = first.idempotencyKey!;
      expect(keys).toEqual([`${recordKey}:create-invoice`, `${recordKey}:add-item`, `${recordKey}:pay`, `${recordKey}:pay`]);
      expect((await guard.get(run.scope, run.key))?.attempts).toBe(2);
    });

    it("is busy while a live lease is held and lets the next claim take over once it lapses (attempt 2, no second reservation)", async () => {
      const run = input({ spend: { period: `2026-11-${id()}`, currency: "usd", amount: 600 } });
      let release!: () => void;
      const held = guard.run(run, () => new Promise((resolve) => (release = () => resolve({ status: "done", objectId: "x" }))));
      await expect.poll(async () => (await guard.get(run.scope, run.key))?.lockOwner).toBeTruthy();
      const busy = await guard.run({ ...run, owner: "other" }, async () => ({ status: "done", objectId: "y" }));
      expect(busy).toMatchObject({ kind: "busy", retryAfterMs: expect.any(Number) });
      clock.advance(leaseMs + 1);
      const takeover = await guard.run({ ...run, owner: "other" }, async ({ attempt }) => ({ status: "done", objectId: `pi_attempt_${attempt}` }));
      expect(takeover).toMatchObject({ kind: "done", objectId: "pi_attempt_2" });
      release();
      // The first holder's answer is the same fact (same key at Stripe) only if it names the same object; here it does not.
      expect(await held).toMatchObject({ kind: "unknown", detail: expect.stringMatching(/recording it failed/) });
      expect(await guard.spend(run.spend!.period, "usd")).toMatchObject({ committedCents: 600 });
    });

    it("tells its health from the ledger and the pending records: what the telemetry's gauges read for a flow", async () => {
      const period = `2099-${id()}`;
      await guard.run(input({ spend: { period, currency: "usd", amount: 300 } }), async () => ({ status: "done", objectId: "ch_h1" }));
      let release!: () => void;
      const held = guard.run(input({ spend: { period, currency: "usd", amount: 200 } }), () => new Promise((resolve) => (release = () => resolve({ status: "done", objectId: "ch_h2" }))));
      await expect.poll(async () => (await guard.health()).pendingBillings).toBeGreaterThanOrEqual(1);
      const health = await guard.health();
      expect(health.oldestPendingAgeSeconds).toEqual(expect.any(Number));
      // Reserved (the pending one) plus charged, against the period's cap; the newest period comes first in the ledger.
      expect(health.spend).toContainEqual({ billingPeriod: period, currency: "usd", limitCents: 1_000, usageCents: 500 });
      release();
      await held;
    });

    it("aborts the signal when the lease lapses, and no step starts after it", async () => {
      const run = input({ leaseMs: 50 });
      let stepped = false;
      const outcome = await guard.run(run, async ({ signal, step }) => {
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        await step("late", async () => {
          stepped = true;
          return "obj";
        });
        return { status: "done", objectId: "obj" };
      });
      expect(outcome).toMatchObject({ kind: "unknown", detail: expect.stringMatching(/LeaseLapsedError/) });
      expect(stepped).toBe(false);
      expect(await guard.get(run.scope, run.key)).toMatchObject({ state: "pending" });
    });

    it("records a decline and gives the reservation back; a replay says declined previously", async () => {
      const run = input();
      const declined = await guard.run(run, async () => ({ status: "declined", reason: "card_declined", objectId: "pi_x" }));
      expect(declined).toMatchObject({ kind: "declined", reason: "card_declined", previously: false });
      expect(await guard.spend(run.spend!.period, "usd")).toMatchObject({ committedCents: 0 });
      expect(await guard.run(run, async () => ({ status: "done", objectId: "pi_y" }))).toMatchObject({ kind: "declined", previously: true });
    });

    it("classifies what the work throws: done (already at Stripe), unknown keeps the record pending and reserved, a first refusal ends it", async () => {
      const classify = (error: unknown): GuardErrorClass => {
        const message = (error as Error).message;
        if (message.startsWith("An event already exists")) return { kind: "done", objectId: "identifier-1" };
        if (message.startsWith("bad")) return { kind: "invalid", reason: "StripeInvalidRequest", detail: message };
        return { kind: "unknown", detail: message };
      };
      const duplicate = input();
      expect(await guard.run(duplicate, async () => Promise.reject(new Error("An event already exists with identifier x")), { classify })).toMatchObject({
        kind: "done",
        objectId: "identifier-1",
      });
      const unknown = input();
      expect(await guard.run(unknown, async () => Promise.reject(new Error("timeout")), { classify })).toMatchObject({ kind: "unknown" });
      expect(await guard.get(unknown.scope, unknown.key)).toMatchObject({ state: "pending", lockedUntil: null });
      expect(await guard.spend(unknown.spend!.period, "usd")).toMatchObject({ committedCents: 700 });
      expect((await guard.stalePending({ limit: 10_000 })).map((r) => r.key)).toContainEqual(unknown.key);
      // Refused on a first attempt, before Stripe did anything: the record ends (refused-after-claim.test.ts walks each path).
      const invalid = input();
      expect(await guard.run(invalid, async () => Promise.reject(new Error("bad param")), { classify })).toMatchObject({ kind: "invalid" });
      expect(await guard.get(invalid.scope, invalid.key)).toBeUndefined();
      expect(await guard.spend(invalid.spend!.period, "usd")).toMatchObject({ committedCents: 0 });
    });

    it("caps spend per (period, currency): 1,000 JPY and 1,000 US cents do not share a cap; a named currency's cap overrides", async () => {
      const period = `2026-12-${id()}`;
      const at = (currency: string, amount: number) => input({ spend: { period, currency, amount }, payload: { amount } });
      const done = async () => ({ status: "done" as const, objectId: "obj" });
      expect(await guard.run(at("usd", 1_000), done)).toMatchObject({ kind: "done" });
      expect(await guard.run(at("eur", 1_000), done)).toMatchObject({ kind: "done" });
      expect(await guard.run(at("jpy", 1_000), done)).toMatchObject({ kind: "done" });
      expect(await guard.run(at("usd", 1), done)).toMatchObject({ kind: "cap-exceeded", reason: expect.stringMatching(/usd cap of 1000 with 1000/) });
      expect(await guard.run(at("jpy", 500), done)).toMatchObject({ kind: "done" });
      expect(await guard.run(at("jpy", 1), done)).toMatchObject({ kind: "cap-exceeded", reason: expect.stringMatching(/jpy cap of 1500/) });
      expect(await guard.spend(period, "jpy")).toEqual({ capCents: 1_500, committedCents: 1_500 });
    });

    it("refuses bad input as invalid without a record: key values, scope, spend", async () => {
      const never = async () => ({ status: "done" as const, objectId: "x" });
      const cases: [Partial<GuardRunInput>, RegExp][] = [
        [{ key: { usageId: "" } }, /key\.usageId/],
        [{ key: { at: 1.5 } }, /key\.at/],
        [{ key: {} }, /at least one identity field/],
        [{ scope: "has space" }, /scope/],
        [{ spend: { period: "p", currency: "USD", amount: 1 } }, /spend\.currency/],
        [{ spend: { period: "p", currency: "usd", amount: 0 } }, /spend\.amount/],
      ];
      for (const [overrides, pattern] of cases) {
        const run = input(overrides);
        expect(await guard.run(run, never)).toMatchObject({ kind: "invalid", reason: "InvalidGuardInput", detail: expect.stringMatching(pattern) });
      }
      const unrecorded = input({ key: { usageId: "" } });
      expect(await guard.stalePending({ limit: 10_000 })).not.toContainEqual(expect.objectContaining({ key: unrecorded.key }));
    });

    it("lets exactly one of many concurrent runs for one identity call Stripe, across competing connections", async () => {
      const guards = [guard];
      for (let i = 1; i < (db.competingGuards ?? 1); i++) guards.push(await Guard.open({ ...db.connection(), clock, leaseMs, poolSize: 4 }));
      try {
        const run = input();
        let calls = 0;
        let open!: () => void;
        const gate = new Promise<void>((resolve) => (open = resolve));
        const outcomes = Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            guards[i % guards.length]!.run({ ...run, owner: `r-${i}` }, async () => {
              calls++;
              await gate;
              return { status: "done", objectId: "pi_one" };
            }),
          ),
        );
        await expect.poll(() => calls).toBe(1);
        open();
        const kinds = (await outcomes).map((o) => o.kind);
        // Runs still queued for a connection when the winner recorded find it done; the others find its lease.
        expect(kinds.filter((k) => k === "done")).toHaveLength(1);
        expect(kinds.filter((k) => k !== "done" && k !== "busy" && k !== "already-done")).toEqual([]);
        expect(calls).toBe(1);
      } finally {
        for (const other of guards.slice(1)) await other.close();
      }
    });
  });
}
