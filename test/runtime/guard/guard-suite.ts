// The guard's behaviour, written once and run against each database (PGlite and real PostgreSQL).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BillingGuard } from "../../../runtime/guard/billing-guard.js";
import { BillingStateError, ChargeguardError, ConfigurationError, InvalidEventError } from "../../../runtime/errors.js";
import { migrations } from "../../../runtime/guard/migrations.js";
import type { BillingGuardOptions, ClaimInput } from "../../../runtime/guard/types.js";
import { stableKey } from "../../../runtime/stable-key.js";
import { AdjustableClock } from "../../../sandbox/clock.js";

export interface GuardBackend {
  /** Options that point a guard at this backend's database (shared by the suite). */
  connection(): Partial<BillingGuardOptions>;
  /** Rows from the backend's database, for checks the guard's API does not expose. */
  query(sql: string): Promise<Record<string, unknown>[]>;
  /** Several independent connections (pools) on one database, as competing replicas would have. */
  competingGuards?: number;
  /** A fresh, empty database for migration tests, with a way to remove it. */
  scratch?(): Promise<{ connection: Partial<BillingGuardOptions>; query(sql: string): Promise<Record<string, unknown>[]>; drop(): Promise<void> }>;
}

const leaseMs = 30_000;
const allVersions = migrations.map((m) => ({ version: m.version }));

export function claimFor(customerId: string, billingPeriod: string, amountCents = 1200, currency = "usd"): ClaimInput {
  const idempotencyKey = stableKey({ customerId, billingPeriod, amountCents, currency }, { scope: "billing" });
  return {
    customerId,
    billingPeriod,
    amountCents,
    currency,
    idempotencyKey,
    request: {
      amount: amountCents,
      currency,
      customer: `cus_${customerId}`,
      payment_method: "pm_card_visa",
      confirm: true,
      off_session: true,
      metadata: { idempotency_key: idempotencyKey, customer_id: customerId, billing_period: billingPeriod },
    },
  };
}

export function describeGuard(name: string, backend: () => GuardBackend): void {
  describe(`BillingGuard on ${name}`, () => {
    const clock = new AdjustableClock();
    const caps = new Map<string, number>();
    let guard: BillingGuard;
    let db: GuardBackend;
    const customer = () => `c-${randomUUID()}`;
    const period = () => `2026-10-${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      db = backend();
      guard = await BillingGuard.open({ ...db.connection(), clock, leaseMs, periodCapCents: (p) => caps.get(p) });
    });
    afterAll(async () => {
      await guard?.close();
    });

    it("claims a new billing: pending, leased to the owner, attempt 1, amount reserved", async () => {
      const input = claimFor(customer(), period());
      const result = await guard.claim(input, "replica-a");
      expect(result.status).toBe("claimed");
      if (result.status !== "claimed") return;
      expect(result.record).toMatchObject({
        state: "pending",
        attempts: 1,
        lockOwner: "replica-a",
        amountCents: 1200,
        currency: "usd",
        idempotencyKey: input.idempotencyKey,
        paymentIntentId: null,
        request: input.request,
      });
      expect(result.lease.lockedUntil.getTime()).toBe(result.record.lockedUntil?.getTime());
      expect(result.lease.lockedUntil.getTime() - result.record.createdAt.getTime()).toBe(leaseMs);
      expect(await guard.periodSpend(input.billingPeriod)).toEqual({ capCents: null, reservedCents: 1200, chargedCents: 0 });
    });

    it("answers already-billed after charged and after completed, without a new lease", async () => {
      const input = claimFor(customer(), period());
      const first = await guard.claim(input, "replica-a");
      if (first.status !== "claimed") throw new Error(`expected claimed, got ${first.status}`);
      await guard.markCharged(first.lease, { paymentIntentId: "pi_1" });
      const afterCharge = await guard.claim(input, "replica-b");
      expect(afterCharge).toMatchObject({ status: "already-billed", record: { state: "charged", paymentIntentId: "pi_1", lockOwner: null } });
      await guard.markCompleted(input);
      await guard.markCompleted(input);
      clock.advance(48 * 3_600_000);
      const afterComplete = await guard.claim(input, "replica-c");
      expect(afterComplete).toMatchObject({ status: "already-billed", record: { state: "completed", attempts: 1 } });
      expect(await guard.periodSpend(input.billingPeriod)).toMatchObject({ reservedCents: 0, chargedCents: 1200 });
    });

    it("says busy while another owner's lease is live, with the time left", async () => {
      const input = claimFor(customer(), period());
      await guard.claim(input, "replica-a");
      clock.advance(10_000);
      const busy = await guard.claim(input, "replica-b");
      expect(busy.status).toBe("busy");
      if (busy.status !== "busy") return;
      expect(busy.retryAfterMs).toBeGreaterThan(leaseMs - 10_000 - 1_000);
      expect(busy.retryAfterMs).toBeLessThanOrEqual(leaseMs - 10_000);
      expect(busy.record.lockOwner).toBe("replica-a");
      // Two handlers of one replica can hold twin events: a live lease is busy for its own owner too.
      expect((await guard.claim(input, "replica-a")).status).toBe("busy");
    });

    it("lets another owner take over once the lease lapses, without reserving twice; the old lease cannot release it", async () => {
      const input = claimFor(customer(), period(), 500);
      const first = await guard.claim(input, "replica-a");
      if (first.status !== "claimed") throw new Error(`expected claimed, got ${first.status}`);
      clock.advance(leaseMs + 1);
      const second = await guard.claim(input, "replica-b");
      expect(second).toMatchObject({ status: "claimed", record: { attempts: 2, lockOwner: "replica-b" } });
      if (second.status !== "claimed") return;
      expect(second.lease.token).not.toBe(first.lease.token);
      expect(await guard.periodSpend(input.billingPeriod)).toMatchObject({ reservedCents: 500, chargedCents: 0 });
      await guard.releaseLease(first.lease);
      expect(await guard.get(input.customerId, input.billingPeriod)).toMatchObject({ lockOwner: "replica-b" });
      expect((await guard.claim(input, "replica-c")).status).toBe("busy");
      // A Stripe outcome is a fact whoever holds the lease: the old holder records it, the new one finds it done.
      await guard.markCharged(first.lease, { paymentIntentId: "pi_take" });
      await guard.markCharged(second.lease, { paymentIntentId: "pi_take" });
      await expect(guard.markCharged(second.lease, { paymentIntentId: "pi_other" })).rejects.toThrow(/already charged by pi_take/);
      expect(await guard.periodSpend(input.billingPeriod)).toMatchObject({ reservedCents: 0, chargedCents: 500 });
    });

    it("refuses the same customer and period with another amount, currency, key or request", async () => {
      const c = customer();
      const p = period();
      const input = claimFor(c, p, 1200);
      await guard.claim(input, "replica-a");
      const otherAmount = await guard.claim(claimFor(c, p, 1300), "replica-b");
      expect(otherAmount).toMatchObject({ status: "mismatch" });
      if (otherAmount.status === "mismatch") expect(otherAmount.reason).toMatch(/1200 usd.*asks for 1300 usd/);
      expect(await guard.claim(claimFor(c, p, 1200, "eur"), "replica-b")).toMatchObject({ status: "mismatch" });
      expect(await guard.claim({ ...input, idempotencyKey: "billing:v1:other" }, "replica-b")).toMatchObject({
        status: "mismatch",
        reason: expect.stringMatching(/idempotency key/),
      });
      const otherRequest = await guard.claim({ ...input, request: { ...input.request, payment_method: "pm_other" } }, "x");
      expect(otherRequest).toMatchObject({ status: "mismatch", reason: expect.stringMatching(/other Stripe request/) });
      // Key order is not a difference.
      const reordered = Object.fromEntries(Object.entries(input.request).reverse());
      expect((await guard.claim({ ...input, request: reordered }, "replica-b")).status).toBe("busy");
    });

    it("refuses a claim that would pass the period cap, and a decline gives its reservation back", async () => {
      const p = period();
      caps.set(p, 3000);
      const a = await guard.claim(claimFor(customer(), p, 1000), "r");
      const b = await guard.claim(claimFor(customer(), p, 1500), "r");
      expect([a.status, b.status]).toEqual(["claimed", "claimed"]);
      const over = await guard.claim(claimFor(customer(), p, 600), "r");
      expect(over).toMatchObject({ status: "cap-exceeded", capCents: 3000, reservedCents: 2500 });
      if (over.status === "cap-exceeded") expect(over.reason).toMatch(/SpendCapExceeded: period .* has a usd cap of 3000 with 2500 reserved/);
      expect(await guard.claim(claimFor(customer(), p, 500), "r")).toMatchObject({ status: "claimed" });
      expect(await guard.periodSpend(p)).toEqual({ capCents: 3000, reservedCents: 3000, chargedCents: 0 });
      if (a.status !== "claimed" || b.status !== "claimed") throw new Error("expected claims");
      await guard.markDeclined(b.lease, { reason: "card_declined: insufficient_funds", paymentIntentId: "pi_dec" });
      await guard.markDeclined(b.lease, { reason: "card_declined: insufficient_funds" });
      expect(await guard.periodSpend(p)).toEqual({ capCents: 3000, reservedCents: 1500, chargedCents: 0 });
      expect(await guard.claim(claimFor(b.record.customerId, p, 1500), "s")).toMatchObject({
        status: "declined",
        record: { state: "declined", declineReason: "card_declined: insufficient_funds", paymentIntentId: "pi_dec", lockOwner: null },
      });
      expect(await guard.claim(claimFor(customer(), p, 1500), "r")).toMatchObject({ status: "claimed" });
      await guard.markCharged(a.lease, { paymentIntentId: "pi_a" });
      expect(await guard.periodSpend(p)).toEqual({ capCents: 3000, reservedCents: 2000, chargedCents: 1000 });
      await expect(guard.markDeclined(a.lease, { reason: "late" })).rejects.toThrow(BillingStateError);
    });

    it("caps each currency separately in its own minor units: 1,000 JPY and 1,000 US cents do not share a cap", async () => {
      const p = period();
      caps.set(p, 1_000);
      const usd = await guard.claim(claimFor(customer(), p, 1_000, "usd"), "a");
      const jpy = await guard.claim(claimFor(customer(), p, 1_000, "jpy"), "a");
      expect([usd.status, jpy.status]).toEqual(["claimed", "claimed"]);
      const more = await guard.claim(claimFor(customer(), p, 1, "jpy"), "a");
      expect(more).toMatchObject({ status: "cap-exceeded", capCents: 1_000, reservedCents: 1_000, reason: expect.stringMatching(/jpy cap of 1000/) });
      expect(await guard.periodSpend(p, "usd")).toEqual({ capCents: 1_000, reservedCents: 1_000, chargedCents: 0 });
      expect(await guard.periodSpend(p, "jpy")).toEqual({ capCents: 1_000, reservedCents: 1_000, chargedCents: 0 });
      expect(await guard.periodSpend(p)).toEqual({ capCents: 1_000, reservedCents: 2_000, chargedCents: 0 });
      if (jpy.status !== "claimed") return;
      await guard.markDeclined(jpy.lease, { reason: "card_declined" });
      expect(await guard.periodSpend(p, "jpy")).toMatchObject({ reservedCents: 0 });
      expect(await guard.periodSpend(p, "usd")).toMatchObject({ reservedCents: 1_000 });
    });

    it("takes caps per named currency over the cap for every currency", async () => {
      const p = period();
      const perCurrency = await BillingGuard.open({ ...db.connection(), clock, leaseMs, periodCapCents: 1_000, periodCaps: { jpy: 100_000 } });
      try {
        expect(await perCurrency.claim(claimFor(customer(), p, 90_000, "jpy"), "a")).toMatchObject({ status: "claimed" });
        expect(await perCurrency.claim(claimFor(customer(), p, 1_001, "usd"), "a")).toMatchObject({ status: "cap-exceeded" });
      } finally {
        await perCurrency.close();
      }
      await expect(BillingGuard.open({ ...db.connection(), periodCaps: { JPY: 1 } })).rejects.toThrow(/"JPY" is not a lower-case ISO 4217/);
      await expect(BillingGuard.open({ ...db.connection(), periodCaps: { jpy: -1 } })).rejects.toThrow(/periodCaps\.jpy must be a non-negative integer/);
    });

    it("releases a lease on an unknown outcome: still pending and reserved, claimable at once, stale for the reconciler", async () => {
      const input = claimFor(customer(), period(), 700);
      const first = await guard.claim(input, "replica-a");
      if (first.status !== "claimed") throw new Error(`expected claimed, got ${first.status}`);
      await guard.releaseLease(first.lease);
      const record = await guard.get(input.customerId, input.billingPeriod);
      expect(record).toMatchObject({ state: "pending", lockedUntil: null, lockOwner: null });
      expect((await guard.stalePending({ limit: 10_000 })).map((r) => r.customerId)).toContain(input.customerId);
      expect(await guard.claim(input, "replica-b")).toMatchObject({ status: "claimed", record: { attempts: 2 } });
      expect(await guard.periodSpend(input.billingPeriod)).toMatchObject({ reservedCents: 700 });
    });

    it("records charges made at the same time together; of two PaymentIntents for one billing, only the one written counts", async () => {
      const inputs = Array.from({ length: 6 }, () => claimFor(customer(), period()));
      const leases = await Promise.all(
        inputs.map(async (input) => {
          const claim = await guard.claim(input, "replica-a");
          if (claim.status !== "claimed") throw new Error(`expected claimed, got ${claim.status}`);
          return claim.lease;
        }),
      );
      const [first, ...rest] = leases as [(typeof leases)[number], ...typeof leases];
      const outcomes = await Promise.allSettled([
        guard.markCharged(first, { paymentIntentId: "pi_one" }),
        guard.markCharged(first, { paymentIntentId: "pi_other" }),
        guard.markCharged(first, { paymentIntentId: "pi_one" }),
        ...rest.map((lease, i) => guard.markCharged(lease, { paymentIntentId: `pi_${i}` })),
      ]);
      const [one, other, oneAgain] = outcomes;
      const recorded = (await guard.get(first.customerId, first.billingPeriod))?.paymentIntentId;
      expect(["pi_one", "pi_other"]).toContain(recorded);
      expect(one?.status === "fulfilled").toBe(recorded === "pi_one");
      expect(oneAgain?.status).toBe(one?.status);
      expect(other?.status === "fulfilled").toBe(recorded === "pi_other");
      const refused = [one, other].find((o) => o?.status === "rejected") as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(BillingStateError);
      expect(outcomes.slice(3).every((o) => o.status === "fulfilled")).toBe(true);
      for (const [i, lease] of rest.entries()) {
        expect(await guard.get(lease.customerId, lease.billingPeriod)).toMatchObject({ state: "charged", paymentIntentId: `pi_${i}`, lockOwner: null });
      }
    });

    it("writes completions queued with markCompletedLater in batches, skipping billings not charged", async () => {
      const charged = Array.from({ length: 5 }, () => claimFor(customer(), period()));
      const pending = claimFor(customer(), period());
      for (const input of charged) {
        const claim = await guard.claim(input, "replica-a");
        if (claim.status !== "claimed") throw new Error(`expected claimed, got ${claim.status}`);
        await guard.markCharged(claim.lease, { paymentIntentId: `pi_${input.customerId}` });
      }
      await guard.claim(pending, "replica-a");
      const queued = [...charged, pending, charged[0] as ClaimInput].map((input) => guard.markCompletedLater(input));
      await guard.flushCompletions();
      await Promise.all(queued);
      for (const input of charged) expect((await guard.get(input.customerId, input.billingPeriod))?.state).toBe("completed");
      expect((await guard.get(pending.customerId, pending.billingPeriod))?.state).toBe("pending");
    });

    it("a charge or completion alone in its batch: the same outcomes as in a batch", async () => {
      const input = claimFor(customer(), period());
      const claim = await guard.claim(input, "replica-a");
      if (claim.status !== "claimed") throw new Error(`expected claimed, got ${claim.status}`);
      await guard.markCompletedLater(input);
      expect((await guard.get(input.customerId, input.billingPeriod))?.state).toBe("pending");
      await guard.markCharged(claim.lease, { paymentIntentId: "pi_alone" });
      await guard.markCharged(claim.lease, { paymentIntentId: "pi_alone" });
      await expect(guard.markCharged(claim.lease, { paymentIntentId: "pi_else" })).rejects.toThrow(/already charged by pi_alone, not pi_else/);
      await guard.markCompletedLater(input);
      expect(await guard.get(input.customerId, input.billingPeriod)).toMatchObject({ state: "completed", paymentIntentId: "pi_alone", lockOwner: null });
    });

    it("refuses to complete what was never charged, and names a missing record", async () => {
      const input = claimFor(customer(), period());
      await expect(guard.markCompleted(input)).rejects.toThrow(/no billing record for customer/);
      await guard.claim(input, "replica-a");
      await expect(guard.markCompleted(input)).rejects.toThrow(/is pending; only a charged billing can be completed/);
    });

    it("lists pending billings whose lease lapsed by the injected clock, oldest first, and only those", async () => {
      const live = claimFor(customer(), period());
      const lapsed = claimFor(customer(), period());
      const charged = claimFor(customer(), period());
      const l = await guard.claim(lapsed, "a");
      const c = await guard.claim(charged, "a");
      if (c.status !== "claimed" || l.status !== "claimed") throw new Error("expected claims");
      await guard.markCharged(c.lease, { paymentIntentId: "pi_c" });
      clock.advance(leaseMs + 1);
      await guard.claim(live, "a");
      const stale = (await guard.stalePending({ limit: 10_000 })).map((r) => r.customerId);
      expect(stale).toContain(lapsed.customerId);
      expect(stale).not.toContain(live.customerId);
      expect(stale).not.toContain(charged.customerId);
      const created = (await guard.stalePending({ limit: 10_000 })).map((r) => r.createdAt.getTime());
      expect(created).toEqual([...created].sort((x, y) => x - y));
      expect(await guard.stalePending({ limit: 1 })).toHaveLength(1);
      await expect(guard.stalePending({ limit: 0 })).rejects.toThrow(/limit must be a positive integer/);
    });

    it("rejects bad claim input with an error naming the field", async () => {
      const input = claimFor(customer(), period());
      await expect(guard.claim({ ...input, amountCents: 12.5 }, "a")).rejects.toThrow(/amountCents must be a positive integer/);
      await expect(guard.claim({ ...input, amountCents: -1 }, "a")).rejects.toThrow(/amountCents/);
      await expect(guard.claim({ ...input, currency: "USD" }, "a")).rejects.toThrow(/currency must be a lower-case ISO 4217/);
      await expect(guard.claim({ ...input, customerId: "" }, "a")).rejects.toThrow(/customerId must be a non-empty string/);
      await expect(guard.claim({ ...input, idempotencyKey: "k".repeat(256) }, "a")).rejects.toThrow(/idempotencyKey/);
      await expect(guard.claim(input, "")).rejects.toThrow(/owner/);
      await expect(guard.claim({ ...input, request: { amount: Number.NaN } }, "a")).rejects.toThrow(/\$\.request\.amount is NaN/);
      expect(await guard.get(input.customerId, input.billingPeriod)).toBeUndefined();
    });

    it("types its refusals: the event's fields InvalidEventError, the consumer's settings ConfigurationError, a caller's slip neither", async () => {
      const input = claimFor(customer(), period());
      const refusal = (claim: Promise<unknown>) => claim.then(() => undefined, (error: unknown) => error);
      const badAmount = await refusal(guard.claim({ ...input, amountCents: 0 }, "a"));
      expect(badAmount).toBeInstanceOf(InvalidEventError);
      expect(badAmount).toMatchObject({ name: "InvalidEventError", field: "amountCents" });
      expect(await refusal(guard.claim({ ...input, currency: "EUR" }, "a"))).toMatchObject({ name: "InvalidEventError", field: "currency" });
      expect(await refusal(guard.claim({ ...input, billingPeriod: "" }, "a"))).toMatchObject({ name: "InvalidEventError", field: "billingPeriod" });
      expect(await refusal(guard.claim(input, ""))).toBeInstanceOf(ConfigurationError);
      const slip = await refusal(guard.claim({ ...input, request: null as never }, "a"));
      expect(slip).toBeInstanceOf(TypeError);
      expect(slip).not.toBeInstanceOf(ChargeguardError);
      expect(await refusal(guard.markCompleted(input))).toBeInstanceOf(ChargeguardError);
      await expect(BillingGuard.open({ ...db.connection(), leaseMs: 0 })).rejects.toThrow(ConfigurationError);
    });

    it("lets exactly one of many concurrent claims for one billing win, across competing connections", async () => {
      const guards = [guard];
      for (let i = 1; i < (db.competingGuards ?? 1); i++) {
        guards.push(await BillingGuard.open({ ...db.connection(), clock, leaseMs, poolSize: 4 }));
      }
      try {
        const input = claimFor(customer(), period(), 900);
        const results = await Promise.all(
          Array.from({ length: 32 }, (_, i) => guards[i % guards.length]!.claim(input, `replica-${i}`)),
        );
        const statuses = results.map((r) => r.status);
        expect(statuses.filter((s) => s === "claimed")).toHaveLength(1);
        expect(statuses.filter((s) => s === "busy")).toHaveLength(31);
        expect(await guard.periodSpend(input.billingPeriod)).toMatchObject({ reservedCents: 900 });
      } finally {
        for (const other of guards.slice(1)) await other.close();
      }
    });

    it("never lets concurrent claims for different customers pass the cap together", async () => {
      const p = period();
      caps.set(p, 10 * 250);
      const guards = [guard];
      for (let i = 1; i < (db.competingGuards ?? 1); i++) {
        guards.push(await BillingGuard.open({ ...db.connection(), clock, leaseMs, poolSize: 4, periodCapCents: (q) => caps.get(q) }));
      }
      try {
        const results = await Promise.all(
          Array.from({ length: 24 }, (_, i) => guards[i % guards.length]!.claim(claimFor(customer(), p, 250), `r-${i}`)),
        );
        expect(results.filter((r) => r.status === "claimed")).toHaveLength(10);
        expect(results.filter((r) => r.status === "cap-exceeded")).toHaveLength(14);
        expect(await guard.periodSpend(p)).toEqual({ capCents: 2500, reservedCents: 2500, chargedCents: 0 });
      } finally {
        for (const other of guards.slice(1)) await other.close();
      }
    });

    it("runs its migrations once however many guards open the database", async () => {
      const again = await BillingGuard.open({ ...db.connection(), clock });
      await again.close();
      expect(await db.query("SELECT version FROM chargeguard_schema_version ORDER BY version")).toEqual(allVersions);
      if (!db.scratch) return;
      const scratch = await db.scratch();
      try {
        const opened = await Promise.all(Array.from({ length: 4 }, () => BillingGuard.open({ ...scratch.connection, clock, poolSize: 2 })));
        await Promise.all(opened.map((g) => g.close()));
        expect(await scratch.query("SELECT version FROM chargeguard_schema_version ORDER BY version")).toEqual(allVersions);
      } finally {
        await scratch.drop();
      }
    });
  });
}
