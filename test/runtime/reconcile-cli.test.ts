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
import { stableKey } from "../../runtime/stable-key.js";
import { createScratchDatabase, testDatabaseUrl } from "./guard/databases.js";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";

let emulator: StripeEmulator;
let dataDir: string;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
/** The command's database option, and the same database for the guard the test opens. */
let database: { args: string[]; options: { databaseUrl: string } | { dataDir: string } };

beforeAll(async () => {
  emulator = await startStripeEmulator();
  dataDir = mkdtempSync(join(tmpdir(), "chargeguard-reconcile-cli-"));
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

async function run(args: string[], env: Record<string, string | undefined>): Promise<{ out: string; exitCode: number | undefined }> {
  const saved = { key: process.env.STRIPE_API_KEY, db: process.env.DATABASE_URL, code: process.exitCode };
  process.env.STRIPE_API_KEY = env.STRIPE_API_KEY;
  if (env.STRIPE_API_KEY === undefined) delete process.env.STRIPE_API_KEY;
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
    if (saved.key === undefined) delete process.env.STRIPE_API_KEY;
    else process.env.STRIPE_API_KEY = saved.key;
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

  it("says what is missing when there is no database or no Stripe key", async () => {
    await expect(run(["--stripe-api-base", emulator.apiBase], { STRIPE_API_KEY: "rk_test_sandbox" })).rejects.toThrow(
      /needs the billing database: --database-url URL, env DATABASE_URL, or --data-dir DIR/,
    );
    await expect(run(["--data-dir", dataDir], { STRIPE_API_KEY: undefined })).rejects.toThrow(/needs STRIPE_API_KEY/);
    await expect(run(["--data-dir", dataDir, "--limit", "0"], { STRIPE_API_KEY: "rk_test_sandbox" })).rejects.toThrow(/positive integer/);
  });
});
