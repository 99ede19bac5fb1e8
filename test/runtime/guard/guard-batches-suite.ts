// The guard under concurrency, written once and run on PGlite and real PostgreSQL: claims and outcomes written in
// batches (group commit) keep each caller's answer, the cap holds across competing replicas, stale records are found
// by the injected clock, and migrations run once however many guards open the database.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BillingStateError } from "../../../runtime/core/errors.js";
import { Guard, type GuardOptions } from "../../../runtime/guard/guard.js";
import type { GuardLease } from "../../../runtime/guard/guard-record.js";
import { identify, type GuardRunInput } from "../../../runtime/guard/guarded-run.js";
import { guardMigrations } from "../../../runtime/guard/migrations.js";
import { AdjustableClock } from "../../../sandbox/clock.js";

export interface GuardBatchesBackend {
  connection(): Partial<GuardOptions>;
  /** Several independent connections (pools) on one database, as competing replicas would have. */
  competingGuards: number;
  query(sql: string): Promise<Record<string, unknown>[]>;
}

const leaseMs = 30_000;

export function describeGuardBatches(name: string, backend: () => GuardBatchesBackend): void {
  describe(`Guard batches on ${name}`, () => {
    const clock = new AdjustableClock();
    const caps = new Map<string, number>();
    let guard: Guard;
    let db: GuardBatchesBackend;
    const id = () => randomUUID().slice(0, 8);
    const input = (period = `2026-10-${id()}`, amount = 250): GuardRunInput => ({
      scope: "billing",
      flow: "payment-intent",
      key: { customerId: `c-${id()}`, billingPeriod: period },
      payload: { amount },
      spend: { period, currency: "usd", amount },
    });
    const claimOf = async (store: Guard, run: GuardRunInput, owner = "replica-a") => {
      const { recordKey, idempotencyKey, fingerprint } = identify(run);
      return store.claim({ ...run, recordKey, idempotencyKey, fingerprint, owner } as Parameters<Guard["claim"]>[0]);
    };
    const leaseOf = async (run: GuardRunInput): Promise<GuardLease> => {
      const claim = await claimOf(guard, run);
      if (claim.status !== "claimed") throw new Error(`expected claimed, got ${claim.status}`);
      return claim.lease;
    };

    beforeAll(async () => {
      db = backend();
      guard = await Guard.open({ ...db.connection(), clock, leaseMs, periodCapCents: (period) => caps.get(period) });
    });
    afterAll(async () => {
      await guard?.close();
    });

    it("records outcomes made at the same time together; of two objects for one record, only the one written counts", async () => {
      const runs = Array.from({ length: 6 }, () => input());
      const leases = await Promise.all(runs.map(leaseOf));
      const [first, ...rest] = leases as [GuardLease, ...GuardLease[]];
      const outcomes = await Promise.allSettled([
        guard.markDone(first, { objectId: "pi_one" }),
        guard.markDone(first, { objectId: "pi_other" }),
        guard.markDone(first, { objectId: "pi_one" }),
        ...rest.map((lease, i) => guard.markDone(lease, { objectId: `pi_${i}` })),
      ]);
      const [one, other, oneAgain] = outcomes;
      const recorded = (await guard.get("billing", runs[0]!.key))?.objectId;
      expect(["pi_one", "pi_other"]).toContain(recorded);
      expect(one?.status === "fulfilled").toBe(recorded === "pi_one");
      expect(oneAgain?.status).toBe(one?.status);
      // The same object twice in one batch turns the record once: one caller is told it recorded it, the other that
      // it was already recorded (what a later batch would say), so the billing is counted charged once.
      if (recorded === "pi_one") {
        const turned = [one, oneAgain].map((o) => (o as PromiseFulfilledResult<boolean>).value);
        expect(turned.sort()).toEqual([false, true]);
      }
      expect(other?.status === "fulfilled").toBe(recorded === "pi_other");
      const refused = [one, other].find((o) => o?.status === "rejected") as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(BillingStateError);
      expect(outcomes.slice(3).every((o) => o.status === "fulfilled")).toBe(true);
      for (const [i, run] of runs.slice(1).entries()) {
        expect(await guard.get("billing", run.key)).toMatchObject({ state: "done", objectId: `pi_${i}`, lockOwner: null });
      }
    });

    it("tells two deliveries recording the same object in one batch that one recorded it and the other found it done", async () => {
      const run = input();
      const lease = await leaseOf(run);
      const turned = await Promise.all([guard.markDone(lease, { objectId: "in_replayed" }), guard.markDone(lease, { objectId: "in_replayed" })]);
      expect(turned.sort()).toEqual([false, true]);
      expect(await guard.get("billing", run.key)).toMatchObject({ state: "done", objectId: "in_replayed" });
    });

    it("never lets concurrent claims for different identities pass the cap together, across competing replicas", async () => {
      const period = `2026-11-${id()}`;
      caps.set(period, 10 * 250);
      const guards = [guard];
      for (let i = 1; i < db.competingGuards; i++) {
        guards.push(await Guard.open({ ...db.connection(), clock, leaseMs, poolSize: 4, periodCapCents: (p) => caps.get(p) }));
      }
      try {
        const results = await Promise.all(Array.from({ length: 24 }, (_, i) => claimOf(guards[i % guards.length]!, input(period), `r-${i}`)));
        expect(results.filter((r) => r.status === "claimed")).toHaveLength(10);
        expect(results.filter((r) => r.status === "cap-exceeded")).toHaveLength(14);
        expect(await guard.periodSpend(period, "usd")).toEqual({ capCents: 2_500, reservedCents: 2_500, chargedCents: 0 });
      } finally {
        for (const other of guards.slice(1)) await other.close();
      }
    });

    it("lists pending records whose lease lapsed by the injected clock, oldest first, and only those", async () => {
      const [live, lapsed, done] = [input(), input(), input()];
      await leaseOf(lapsed);
      await guard.markDone(await leaseOf(done), { objectId: "pi_done" });
      clock.advance(leaseMs + 1);
      await leaseOf(live);
      const stale = await guard.stalePending({ limit: 10_000 });
      const ids = stale.map((r) => r.key.customerId);
      expect(ids).toContain(lapsed.key.customerId);
      expect(ids).not.toContain(live.key.customerId);
      expect(ids).not.toContain(done.key.customerId);
      const created = stale.map((r) => r.createdAt.getTime());
      expect(created).toEqual([...created].sort((x, y) => x - y));
      await expect(guard.stalePending({ limit: 0 })).rejects.toThrow(/limit must be a positive integer/);
    });

    it("runs its migrations once however many guards open the database at once", async () => {
      const opened = await Promise.all(Array.from({ length: 3 }, () => Guard.open({ ...db.connection(), clock, poolSize: 2 })));
      await Promise.all(opened.map((g) => g.close()));
      expect(await db.query("SELECT version FROM chargeguard_schema_version ORDER BY version")).toEqual(guardMigrations().map((m) => ({ version: m.version })));
    });
  });
}
