// Schema upgrades on databases written by earlier releases, on PGlite and real PostgreSQL:
// - migration 4 splits the one-row-per-period ledger into (period, currency) rows rebuilt from the records;
// - migration 5 moves the default consumer's billing_records into guard_records (one guard, one table): a database
//   written by the release before it (rows made by its own claim function) opens; a billing it charged answers
//   already-done to the same event, one it left pending is taken over with the same key (no mismatch), the spend
//   stays as it was; an old replica that claims after the move is refused (CG002) instead of billing.
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { usageEventBilling } from "../../../runtime/flows/billing-event.js";
import { Guard, type GuardOptions } from "../../../runtime/guard/guard.js";
import type { GuardRunInput } from "../../../runtime/guard/guarded-run.js";
import { guardMigrations } from "../../../runtime/guard/migrations.js";
import { stableKey } from "../../../runtime/core/stable-key.js";
import type { UsageEvent } from "../../../runtime/event/usage-event.js";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

async function writeSchema(query: Query, upTo: number): Promise<void> {
  await query(`CREATE TABLE chargeguard_schema_version (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL)`);
  for (const migration of guardMigrations().filter((m) => m.version <= upTo)) {
    for (const statement of migration.statements) {
      if (typeof statement !== "string") throw new Error(`migration ${migration.version} has a code step: not an earlier release's schema`);
      await query(statement);
    }
    await query(`INSERT INTO chargeguard_schema_version VALUES ($1, $2, now())`, [migration.version, migration.description]);
  }
}

async function writeVersion3Database(query: Query): Promise<void> {
  await writeSchema(query, 3);
  const row = (customer: string, state: string, amount: number, currency: string, pi: string | null) =>
    query(
      `INSERT INTO billing_records (customer_id, billing_period, state, idempotency_key, fingerprint, amount_cents, currency,
                                    payment_intent_id, request, created_at, updated_at)
       VALUES ($1, '2026-09', $2, $3, 'f', $4, $5, $6, '{"amount": 1}', now(), now())`,
      [customer, state, `billing:v1:${customer}`, amount, currency, pi],
    );
  await row("c-usd-pending", "pending", 1_000, "usd", null);
  await row("c-jpy-charged", "completed", 1_000, "jpy", "pi_jpy");
  await row("c-usd-declined", "declined", 500, "usd", null);
  // The old ledger summed both currencies into one number.
  await query(`INSERT INTO spend_ledger (billing_period, cap_cents, committed_cents, updated_at) VALUES ('2026-09', 5000, 2000, now())`);
}

const event = (customerId: string, amountCents: number): UsageEvent => ({
  customerId,
  stripeCustomerId: `cus_${customerId}`,
  paymentMethodId: "pm_card_visa",
  billingPeriod: "2026-10",
  amountCents,
  currency: "usd",
});

/** What the default consumer hands the guard for a usage event (handler/prepare-billing.ts and guarded-charge.ts). */
function guardInput(usage: UsageEvent): GuardRunInput {
  const billing = usageEventBilling.toBilling(usage);
  const idempotencyKey = stableKey(billing.keyFields ?? billing.key, { scope: "billing" });
  return {
    scope: "billing",
    key: billing.key,
    payload: billing.request(idempotencyKey) as unknown as Record<string, unknown>,
    ...(billing.spend === undefined ? {} : { spend: billing.spend }),
    flow: "payment-intent",
    idempotencyKey,
  };
}

/** A database of the release before the one table: billing_records rows written by its own claim function. */
async function writeVersion4Database(query: Query): Promise<void> {
  await writeSchema(query, 4);
  const claim = async (usage: UsageEvent, lockedUntil: string) => {
    const input = guardInput(usage);
    await query(`SELECT * FROM chargeguard_claim($1, $2, $3, 'old-fingerprint', $4, 'usd', $5::jsonb, 100000, now(), $6::timestamptz, 'old-replica', 'token')`, [
      usage.customerId, usage.billingPeriod, input.idempotencyKey, usage.amountCents, JSON.stringify(input.payload), lockedUntil,
    ]);
  };
  await claim(event("c-charged", 1_200), "2000-01-01T00:00:00Z");
  await query(`UPDATE billing_records SET state = 'completed', payment_intent_id = 'pi_charged', lease_token = NULL, locked_until = NULL WHERE customer_id = 'c-charged'`);
  await claim(event("c-pending", 700), "2000-01-01T00:00:00Z");
}

async function upgradeTo4AndCheck(connection: Partial<GuardOptions>): Promise<void> {
  const guard = await Guard.open({ ...connection, periodCapCents: 1_500 });
  try {
    expect(await guard.get("billing", { customerId: "c-jpy-charged", billingPeriod: "2026-09" })).toMatchObject({ state: "done", objectId: "pi_jpy" });
    expect(await guard.periodSpend("2026-09", "usd")).toEqual({ capCents: 1_500, reservedCents: 1_000, chargedCents: 0 });
    expect(await guard.periodSpend("2026-09", "jpy")).toEqual({ capCents: 1_500, reservedCents: 0, chargedCents: 1_000 });
    const spend = (currency: string, amount: number) => ({ period: "2026-09", currency, amount });
    const done = async () => ({ status: "done" as const, objectId: "pi_new" });
    expect(await guard.run({ scope: "billing", flow: "payment-intent", key: { c: "new-jpy" }, payload: {}, spend: spend("jpy", 500) }, done)).toMatchObject({ kind: "done" });
    expect(await guard.run({ scope: "billing", flow: "payment-intent", key: { c: "new-usd" }, payload: {}, spend: spend("usd", 501) }, done)).toMatchObject({ kind: "cap-exceeded" });
  } finally {
    await guard.close();
  }
}

async function upgradeTo5AndCheck(connection: Partial<GuardOptions>, query: Query): Promise<void> {
  const guard = await Guard.open(connection);
  try {
    let calls = 0;
    const work = async () => {
      calls++;
      return { status: "done" as const, objectId: "pi_pending" };
    };
    expect(await guard.run(guardInput(event("c-charged", 1_200)), work)).toMatchObject({ kind: "already-done", objectId: "pi_charged" });
    expect(calls).toBe(0);
    // Taken over with the key Stripe already holds: the same event, not a mismatch.
    expect(await guard.run(guardInput(event("c-pending", 700)), work)).toMatchObject({ kind: "done", objectId: "pi_pending" });
    expect(calls).toBe(1);
    expect(await guard.get("billing", { customerId: "c-pending", billingPeriod: "2026-10" })).toMatchObject({ state: "done", attempts: 2 });
    // The ledger did not move: both were reserved once, by the old release.
    expect(await guard.periodSpend("2026-10", "usd")).toEqual({ capCents: 100_000, reservedCents: 0, chargedCents: 1_900 });
    // An old replica still running: its claim is refused, so it reschedules the message instead of billing.
    await expect(
      query(`SELECT * FROM chargeguard_claim_many(ARRAY['c'], ARRAY['2026-10'], ARRAY['k'], ARRAY['f'], ARRAY[1]::bigint[], ARRAY['usd'],
             ARRAY['{}']::jsonb[], ARRAY[NULL]::bigint[], ARRAY[now()], ARRAY[now()], ARRAY['o'], ARRAY['t'])`),
    ).rejects.toMatchObject({ code: "CG002" });
    // The old rows are kept, renamed, for the audit trail.
    const kept = (await query(`SELECT count(*)::int AS n FROM billing_records_v4`)) as { rows?: { n: number }[] } | { n: number }[];
    expect(Array.isArray(kept) ? kept[0]?.n : kept.rows?.[0]?.n).toBe(2);
  } finally {
    await guard.close();
  }
}

async function onPglite(write: (query: Query) => Promise<void>, check: (connection: Partial<GuardOptions>, query: Query) => Promise<void>) {
  const db = await PGlite.create();
  try {
    const query: Query = (sql, params) => db.query(sql, params);
    await write(query);
    await check({ pglite: db }, query);
  } finally {
    await db.close();
  }
}

async function onPostgres(write: (query: Query) => Promise<void>, check: (connection: Partial<GuardOptions>, query: Query) => Promise<void>) {
  const scratch = await createScratchDatabase(await postgresServerUrl());
  const client = new pg.Client({ connectionString: scratch.url });
  client.on("error", () => {});
  await client.connect();
  try {
    const query: Query = (sql, params) => client.query(sql, params);
    await write(query);
    await check({ databaseUrl: scratch.url }, query);
  } finally {
    await client.end();
    await scratch.drop();
  }
}

// A fresh embedded database per case (each starts from an earlier schema): PGlite takes seconds to start on a busy machine.
const fresh = { timeout: 180_000 };

describe("migration 4 (spend ledger per currency) on a database of schema 3", fresh, () => {
  it("PGlite", () => onPglite(writeVersion3Database, upgradeTo4AndCheck));
  it("PostgreSQL", () => onPostgres(writeVersion3Database, upgradeTo4AndCheck));
});

describe("migration 5 (one record table) on a database the previous release wrote", fresh, () => {
  it("PGlite", () => onPglite(writeVersion4Database, upgradeTo5AndCheck));
  it("PostgreSQL", () => onPostgres(writeVersion4Database, upgradeTo5AndCheck));
});
