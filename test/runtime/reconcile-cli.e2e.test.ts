// `chargeguard reconcile` as an operator runs it: the command's own argument parsing, the billing database (real
// PostgreSQL when the test server is there, else embedded PGlite on disk) and the real SDK on the Stripe emulator.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { register } from "../../cli/commands/reconcile.js";
import { BillingGuard } from "../../runtime/guard/billing-guard.js";
import { Guard } from "../../runtime/guard/record-guard.js";
import { stableKey } from "../../runtime/stable-key.js";
import { createScratchDatabase } from "./guard/databases.js";
import { startKeybrakeEmulator } from "../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";

let emulator: StripeEmulator;
let dataDir: string;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
/** The command's database option, and the same database for the guard the test opens. */
let database: { args: string[]; options: { databaseUrl: string } | { dataDir: string } };

beforeAll(async () => {
  emulator = await startStripeEmulator();
  dataDir = mkdtempSync(join(tmpdir(), "chargeguard-reconcile-cli-"));
  // Under with-postgres.mjs a PostgreSQL database, else an embedded PGlite directory: both are the reconciler's.
  const testDatabaseUrl = process.env.TEST_DATABASE_URL;
  if (testDatabaseUrl) {
    scratch = await createScratchDatabase(testDatabaseUrl);
    database = { args: ["--database-url", scratch.url], options: { databaseUrl: scratch.url } };
  } else {
    database = { args: ["--data-dir", dataDir], options: { dataDir } };
  }
});
afterAll(async () => {
  await emulator?.stop();
  await scratch?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The consumer's Stripe settings the command reads; each run sets exactly the ones it is given. */
const stripeEnv = ["STRIPE_API_KEY", "KEYBRAKE_URL", "KEYBRAKE_API_KEY", "BILLING_PERIOD_CAP_CENTS"] as const;

async function run(args: string[], env: Partial<Record<(typeof stripeEnv)[number], string>>): Promise<{ out: string; exitCode: number | undefined }> {
  const saved = { env: Object.fromEntries(stripeEnv.map((name) => [name, process.env[name]])), db: process.env.DATABASE_URL, code: process.exitCode };
  for (const name of stripeEnv) {
    if (env[name] === undefined) delete process.env[name];
    else process.env[name] = env[name];
  }
  delete process.env.DATABASE_URL;
  process.exitCode = undefined;
  const lines: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
  try {
    const program = new Command("chargeguard").exitOverride().configureOutput({ writeErr: () => {} });
    register(program);
    await program.parseAsync(["reconcile", ...args], { from: "user" });
    return { out: lines.join("\n"), exitCode: process.exitCode === undefined ? undefined : Number(process.exitCode) };
  } finally {
    log.mockRestore();
    process.exitCode = saved.code;
    for (const name of stripeEnv) {
      if (saved.env[name] === undefined) delete process.env[name];
      else process.env[name] = saved.env[name];
    }
    if (saved.db !== undefined) process.env.DATABASE_URL = saved.db;
  }
}

describe("chargeguard reconcile", () => {
  it("charges a stranded billing once, reporting as JSON, and a second run finds nothing to do", async () => {
    const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
    const customer = await stripe.customers.create({ name: "cli" });
    const idempotencyKey = stableKey({ customerId: "cli-1", billingPeriod: "2026-10", amountCents: 4200, currency: "eur" }, { scope: "billing" });
    const guard = await BillingGuard.open(database.options);
    const claim = await guard.claim(
      {
        customerId: "cli-1",
        billingPeriod: "2026-10",
        amountCents: 4200,
        currency: "eur",
        idempotencyKey,
        request: {
          amount: 4200,
          currency: "eur",
          customer: customer.id,
          payment_method: "pm_card_visa",
          confirm: true,
          off_session: true,
          metadata: { idempotency_key: idempotencyKey, customer_id: "cli-1", billing_period: "2026-10" },
        },
      },
      "consumer-that-died",
    );
    if (claim.status !== "claimed") throw new Error(`expected a claim, got ${claim.status}`);
    await guard.releaseLease(claim.lease);
    await guard.close();

    const env = { STRIPE_API_KEY: "rk_test_sandbox" };
    const dry = await run([...database.args, "--stripe-api-base", emulator.apiBase, "--dry-run"], env);
    expect(dry.out).toMatch(/dry run: nothing charged or recorded.*1 stale pending/);
    expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(0);

    const first = await run([...database.args, "--stripe-api-base", emulator.apiBase, "--json"], env);
    const report = JSON.parse(first.out) as { examined: number; retriedWithKey: number; outcomes: { paymentIntentId?: string }[] };
    expect(report).toMatchObject({ examined: 1, retriedWithKey: 1, stillUnknown: 0 });
    const intents = emulator.ledger.paymentIntents(customer.id);
    expect(intents).toHaveLength(1);
    expect(report.outcomes[0]?.paymentIntentId).toBe(intents[0]?.id);
    expect(first.exitCode).toBeUndefined();

    const second = await run([...database.args, "--stripe-api-base", emulator.apiBase], env);
    expect(second.out).toMatch(/0 stale pending billing/);
    expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(1);
  });

  it("charges through the consumer's vault keys and their cap, with no Stripe key of its own", async () => {
    const keybrake = await startKeybrakeEmulator({ stripeApiBase: emulator.apiBase });
    try {
      const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
      const guard = await BillingGuard.open(database.options);
      const customers: string[] = [];
      // Two billings of one period stranded by a consumer that died after its claims: 700 + 700 against a vault key
      // sized for a 1,000-cent period (cap 1,100).
      for (const customerId of ["vault-1", "vault-2"]) {
        const customer = await stripe.customers.create({ name: customerId });
        customers.push(customer.id);
        const idempotencyKey = stableKey({ customerId, billingPeriod: "2026-11", amountCents: 700, currency: "usd" }, { scope: "billing" });
        const claim = await guard.claim(
          {
            customerId, billingPeriod: "2026-11", amountCents: 700, currency: "usd", idempotencyKey,
            request: {
              amount: 700, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true,
              metadata: { idempotency_key: idempotencyKey, customer_id: customerId, billing_period: "2026-11" },
            },
          },
          "consumer-that-died",
        );
        if (claim.status !== "claimed") throw new Error(`expected a claim, got ${claim.status}`);
        await guard.releaseLease(claim.lease);
      }
      await guard.close();

      const result = await run([...database.args, "--flow", "payment-intent", "--json"], {
        KEYBRAKE_URL: keybrake.baseUrl,
        KEYBRAKE_API_KEY: keybrake.apiKey,
        BILLING_PERIOD_CAP_CENTS: "1000",
      });
      const report = JSON.parse(result.out) as { retriedWithKey: number; stillUnknown: number; outcomes: { customerId: string; detail?: string }[] };
      expect(report).toMatchObject({ retriedWithKey: 1, stillUnknown: 1 });
      expect(report.outcomes.find((o) => o.customerId === "vault-2")?.detail).toMatch(/spend-cap/);
      expect(keybrake.keys()).toEqual([expect.objectContaining({ label: "chargeguard-2026-11", capCents: 1_100 })]);
      expect(customers.map((id) => emulator.ledger.paymentIntents(id).length)).toEqual([1, 0]);
      expect(result.exitCode).toBe(3);
    } finally {
      await keybrake.stop();
    }
  });

  it("--dry-run with vault keys mints no vault key (issue 30, suspect 8c): it plans without one, or reads with STRIPE_API_KEY when given", async () => {
    const keybrake = await startKeybrakeEmulator({ stripeApiBase: emulator.apiBase });
    try {
      const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
      const customer = await stripe.customers.create({ name: "dry" });
      const idempotencyKey = stableKey({ customerId: "dry-1", billingPeriod: "2026-12", amountCents: 300, currency: "usd" }, { scope: "billing" });
      const guard = await BillingGuard.open(database.options);
      const claim = await guard.claim(
        {
          customerId: "dry-1", billingPeriod: "2026-12", amountCents: 300, currency: "usd", idempotencyKey,
          request: {
            amount: 300, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true,
            metadata: { idempotency_key: idempotencyKey, customer_id: "dry-1", billing_period: "2026-12" },
          },
        },
        "consumer-that-died",
      );
      if (claim.status !== "claimed") throw new Error(`expected a claim, got ${claim.status}`);
      await guard.releaseLease(claim.lease);
      await guard.close();

      const env = { KEYBRAKE_URL: keybrake.baseUrl, KEYBRAKE_API_KEY: keybrake.apiKey, BILLING_PERIOD_CAP_CENTS: "1000" };
      const dry = await run([...database.args, "--flow", "payment-intent", "--dry-run", "--json"], env);
      const report = JSON.parse(dry.out) as { dryRun: boolean; outcomes: { customerId: string; action: string; detail?: string }[] };
      expect(report.dryRun).toBe(true);
      expect(report.outcomes.find((o) => o.customerId === "dry-1")).toMatchObject({ action: "retried-with-key", detail: expect.stringMatching(/would retry/) });
      const withReadKey = await run([...database.args, "--flow", "payment-intent", "--dry-run", "--stripe-api-base", emulator.apiBase], { ...env, STRIPE_API_KEY: "rk_test_sandbox" });
      expect(withReadKey.out).toMatch(/dry run: nothing charged or recorded/);
      expect(keybrake.keyServiceStats.issued).toBe(0);
      expect(keybrake.keys()).toEqual([]);
      expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(0);
      // The real run then charges through the vault as the consumer does.
      const real = await run([...database.args, "--flow", "payment-intent", "--json"], env);
      expect(JSON.parse(real.out)).toMatchObject({ dryRun: false });
      expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(1);
      expect(keybrake.keys().filter((key) => key.label === "chargeguard-2026-12")).toHaveLength(1);
    } finally {
      await keybrake.stop();
    }
  });

  it("--flow invoice: finishes a stranded invoice from its recovery points (guard_records); an unknown flow is refused", async () => {
    const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
    const customer = await stripe.customers.create({ invoice_settings: { default_payment_method: "pm_card_visa" } });
    const guard = await Guard.open(database.options);
    const request = { customer: customer.id, currency: "usd", items: [{ amount: 700 }] };
    // The consumer died after creating the invoice: the claim and the first recovery point are recorded, nothing after.
    const outcome = await guard.run({ scope: "cli", key: { usageId: customer.id }, payload: request, flow: "invoice" }, async ({ step }) => {
      await step("invoice", async (key) => (await stripe.invoices.create({ customer: customer.id, currency: "usd", auto_advance: false, collection_method: "charge_automatically", pending_invoice_items_behavior: "exclude", metadata: { idempotency_key: key.slice(0, -":invoice".length) } }, { idempotencyKey: key })).id!);
      throw new Error("killed");
    });
    expect(outcome.kind).toBe("unknown");
    await guard.close();

    const env = { STRIPE_API_KEY: "rk_test_sandbox" };
    const result = await run([...database.args, "--stripe-api-base", emulator.apiBase, "--flow", "invoice", "--json"], env);
    const report = JSON.parse(result.out) as { flows: { examined: number; completed: number }; examined?: number };
    expect(report.flows).toMatchObject({ examined: 1, completed: 1 });
    expect(report.examined).toBeUndefined();
    expect(emulator.ledger.invoices(customer.id).map((i) => [i.status, i.amount_paid])).toEqual([["paid", 700]]);
    expect(result.exitCode).toBeUndefined();
    await expect(run([...database.args, "--flow", "nope"], env)).rejects.toThrow(/--flow must be one of payment-intent, charge, invoice, meter-event/);
  });

  it("says what is missing when there is no database or no Stripe key", async () => {
    await expect(run(["--stripe-api-base", emulator.apiBase], { STRIPE_API_KEY: "rk_test_sandbox" })).rejects.toThrow(
      /needs the billing database: --database-url URL, env DATABASE_URL, or --data-dir DIR/,
    );
    await expect(run(["--data-dir", dataDir], { STRIPE_API_KEY: undefined })).rejects.toThrow(/needs the consumer.s Stripe access: KEYBRAKE_URL and KEYBRAKE_API_KEY .*or STRIPE_API_KEY/);
    await expect(run(["--data-dir", dataDir, "--limit", "0"], { STRIPE_API_KEY: "rk_test_sandbox" })).rejects.toThrow(/positive integer/);
  });
});
