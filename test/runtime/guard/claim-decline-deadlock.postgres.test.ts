// A claim batch and a concurrent decline or forget on real PostgreSQL. A batch takes, claim by claim in
// (period, currency, scope, key) order, a new record's row then its period's ledger row, then the next record's row;
// a decline or forget takes its record's row then the ledger's. A batch holding the ledger (for an earlier new record)
// while it waits for a record another replica is declining, which waits for the ledger, is a deadlock: PostgreSQL ends
// one statement (40P01, "deadlock detected"; seen here both ways: the decline failed, or the batch). The order is
// forced: a third session holds the ledger row until the batch and then the settlement wait on it. Both now take the
// ledger row first (sql/000007.sql), so they run one after the other.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Guard } from "../../../runtime/guard/guard.js";
import type { GuardLease } from "../../../runtime/guard/guard-record.js";
import { identify, type GuardRunInput } from "../../../runtime/guard/guarded-run.js";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";

let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let replicaA: Guard;
let replicaB: Guard;
let session: pg.Client;

beforeAll(async () => {
  database = await createScratchDatabase(await postgresServerUrl());
  replicaA = await Guard.open({ databaseUrl: database.url, periodCapCents: 1_000_000 });
  replicaB = await Guard.open({ databaseUrl: database.url, periodCapCents: 1_000_000 });
  session = new pg.Client({ connectionString: database.url });
  session.on("error", () => {});
  await session.connect();
});
afterAll(async () => {
  await session?.end();
  await replicaA?.close();
  await replicaB?.close();
  await database?.drop();
});

const run = (customerId: string, period: string): GuardRunInput => ({
  scope: "billing",
  flow: "payment-intent",
  key: { customerId, billingPeriod: period },
  payload: { amount: 250 },
  spend: { period, currency: "usd", amount: 250 },
});

function claim(guard: Guard, input: GuardRunInput, owner: string) {
  const { recordKey, idempotencyKey, fingerprint } = identify(input);
  return guard.claim({ ...input, recordKey, idempotencyKey, fingerprint, owner } as Parameters<Guard["claim"]>[0]);
}

/** Resolves once `count` statements of the database wait on a lock. */
async function waiting(count: number): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const { rows } = await session.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (Number(rows[0]?.n) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${count} statement(s) never waited on a lock`);
}

const settlements = {
  decline: (lease: GuardLease) => replicaA.markDeclined(lease, { reason: "card_declined" }),
  forget: (lease: GuardLease) => replicaA.forget(lease, { kind: "first-attempt" }),
};

describe("a claim batch and a concurrent settlement on PostgreSQL", () => {
  for (const [name, settle] of Object.entries(settlements)) {
    it(`${name}: both finish (no 'deadlock detected'), the batch's new record claimed, the settled one's reservation given back`, async () => {
      const period = `2026-12-${randomUUID().slice(0, 8)}`;
      // Sorted in the batch: the new record (a-) before the one being settled (b-).
      const settled = run(`b-${name}`, period);
      const fresh = run(`a-${name}`, period);
      const held = await claim(replicaA, settled, "replica-a");
      if (held.status !== "claimed") throw new Error(`expected claimed, got ${held.status}`);

      await session.query("BEGIN");
      await session.query(`SELECT 1 FROM spend_ledger WHERE billing_period = $1 AND currency = 'usd' FOR UPDATE`, [period]);
      // Replica B's batch: the new record, then a redelivery of the one replica A is settling.
      const batch = Promise.allSettled([claim(replicaB, fresh, "replica-b"), claim(replicaB, settled, "replica-b")]);
      await waiting(1);
      const settling = settle(held.lease).then(
        (value) => ({ value }),
        (error: unknown) => ({ error: String(error) }),
      );
      await waiting(2);
      await session.query("COMMIT");

      const [freshClaim, redelivery] = await batch;
      expect(await settling).toEqual({ value: true });
      expect(freshClaim).toMatchObject({ status: "fulfilled", value: { status: "claimed" } });
      // The batch had the ledger first, so it ran first: the redelivery found the record leased to replica A, and the
      // settlement then gave its reservation back. (On the old lock order PostgreSQL ended one of the two: the
      // settlement failed, or the batch was written again claim by claim after it and found the record settled.)
      expect(redelivery).toMatchObject({ status: "fulfilled", value: { status: "busy" } });
      expect(await replicaA.periodSpend(period, "usd")).toMatchObject({ reservedCents: 250 });
    }, 20_000);
  }
});
