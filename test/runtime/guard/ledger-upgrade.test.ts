// Migration 4 splits the one-row-per-period ledger into (period, currency) rows rebuilt from the records: a
// database written by the previous schema opens, its records read as before, its spend is per currency.
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { BillingGuard } from "../../../runtime/guard/billing-guard.js";
import { migrations } from "../../../runtime/guard/migrations.js";
import type { BillingGuardOptions } from "../../../runtime/guard/types.js";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

async function writeVersion3Database(query: Query): Promise<void> {
  await query(`CREATE TABLE chargeguard_schema_version (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL)`);
  for (const migration of migrations.filter((m) => m.version <= 3)) {
    for (const statement of migration.statements) await query(statement);
    await query(`INSERT INTO chargeguard_schema_version VALUES ($1, $2, now())`, [migration.version, migration.description]);
  }
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

async function upgradeAndCheck(connection: Partial<BillingGuardOptions>): Promise<void> {
  const guard = await BillingGuard.open({ ...connection, periodCapCents: 1_500 });
  try {
    expect(await guard.get("c-jpy-charged", "2026-09")).toMatchObject({ state: "completed", paymentIntentId: "pi_jpy", amountCents: 1_000 });
    expect(await guard.periodSpend("2026-09", "usd")).toEqual({ capCents: 1_500, reservedCents: 1_000, chargedCents: 0 });
    expect(await guard.periodSpend("2026-09", "jpy")).toEqual({ capCents: 1_500, reservedCents: 0, chargedCents: 1_000 });
    const input = (customerId: string, currency: string, amountCents: number) => ({
      customerId, billingPeriod: "2026-09", amountCents, currency, idempotencyKey: `k-${customerId}`, request: { amount: amountCents },
    });
    expect(await guard.claim(input("c-new-jpy", "jpy", 500), "a")).toMatchObject({ status: "claimed" });
    expect(await guard.claim(input("c-new-usd", "usd", 501), "a")).toMatchObject({ status: "cap-exceeded" });
  } finally {
    await guard.close();
  }
}

describe("migration 4 (spend ledger per currency) on a database of the previous schema", () => {
  it("PGlite", async () => {
    const db = await PGlite.create();
    try {
      await writeVersion3Database((sql, params) => db.query(sql, params));
      await upgradeAndCheck({ pglite: db });
    } finally {
      await db.close();
    }
  });

  it("PostgreSQL", async () => {
    const scratch = await createScratchDatabase(await postgresServerUrl());
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      await writeVersion3Database((sql, params) => client.query(sql, params));
      await upgradeAndCheck({ databaseUrl: scratch.url });
    } finally {
      await client.end();
      await scratch.drop();
    }
  });
});
