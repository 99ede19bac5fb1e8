// `chargeguard reconcile` as an operator runs it: the command's own argument parsing, the billing database (real
// PostgreSQL when the test server is there, else embedded PGlite on disk) and the real SDK on the Stripe emulator.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { register } from "../../../cli/commands/reconcile.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { strandBilling } from "../support/stranded-billing.js";
import { stableKey } from "../../../runtime/core/stable-key.js";
import { identify } from "../../../runtime/guard/guarded-run.js";
import { createScratchDatabase } from "../guard/databases.js";
import { startKeybrakeEmulator } from "../../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

let emulator: StripeEmulator;
let dataDir: string;
let secrets: string;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
/** The command's database option, and the same database for the guard the test opens. */
let database: { args: string[]; options: { databaseUrl: string } | { dataDir: string } };

beforeAll(async () => {
  emulator = await startStripeEmulator();
  dataDir = mkdtempSync(join(tmpdir(), "chargeguard-reconcile-cli-"));
  secrets = mkdtempSync(join(tmpdir(), "chargeguard-reconcile-secrets-"));
  // Under with-postgres.mjs a PostgreSQL database, else an embedded PGlite directory: both are the reconciler's.
  const testDatabaseUrl = process.env.TEST_DATABASE_URL;
  if (testDatabaseUrl) {
    scratch = await createScratchDatabase(testDatabaseUrl);
    // The URL carries the test server's password: an operator passes it in a file (a flag would show it in ps).
    const urlFile = join(secrets, "database-url");
    writeFileSync(urlFile, scratch.url, { mode: 0o600 });
    database = { args: ["--database-url-file", urlFile], options: { databaseUrl: scratch.url } };
  } else {
    database = { args: ["--data-dir", dataDir], options: { dataDir } };
  }
});
afterAll(async () => {
  await emulator?.stop();
  await scratch?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(secrets, { recursive: true, force: true });
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
    const guard = await Guard.open(database.options);
    await strandBilling(guard, {
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
    });
    await guard.close();

    const env = { STRIPE_API_KEY: "rk_test_sandbox" };
    const dry = await run([...database.args, "--stripe-api-base", emulator.apiBase, "--dry-run"], env);
    expect(dry.out).toMatch(/dry run: nothing charged or recorded.*1 stale pending/);
    expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(0);

    const first = await run([...database.args, "--stripe-api-base", emulator.apiBase, "--json"], env);
    const report = JSON.parse(first.out) as { examined: number; completed: number; outcomes: { objectId?: string }[] };
    expect(report).toMatchObject({ examined: 1, completed: 1, stillUnknown: 0 });
    const intents = emulator.ledger.paymentIntents(customer.id);
    expect(intents).toHaveLength(1);
    expect(report.outcomes[0]?.objectId).toBe(intents[0]?.id);
    expect(first.exitCode).toBeUndefined();

    const second = await run([...database.args, "--stripe-api-base", emulator.apiBase], env);
    expect(second.out).toMatch(/0 stale pending billing/);
    expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(1);
  });

  it("charges through the consumer's vault keys and their cap, with no Stripe key of its own", async () => {
    const keybrake = await startKeybrakeEmulator({ stripeApiBase: emulator.apiBase });
    try {
      const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
      const guard = await Guard.open(database.options);
      const customers: string[] = [];
      // Two billings of one period stranded by a consumer that died after its claims: 700 + 700 against a vault key
      // sized for a 1,000-cent period (cap 1,100).
      for (const customerId of ["vault-1", "vault-2"]) {
        const customer = await stripe.customers.create({ name: customerId });
        customers.push(customer.id);
        const idempotencyKey = stableKey({ customerId, billingPeriod: "2026-11", amountCents: 700, currency: "usd" }, { scope: "billing" });
        await strandBilling(guard, {
            customerId, billingPeriod: "2026-11", amountCents: 700, currency: "usd", idempotencyKey,
            request: {
              amount: 700, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true,
              metadata: { idempotency_key: idempotencyKey, customer_id: customerId, billing_period: "2026-11" },
            },
        });
      }
      await guard.close();

      const result = await run([...database.args, "--flow", "payment-intent", "--json"], {
        KEYBRAKE_URL: keybrake.baseUrl,
        KEYBRAKE_API_KEY: keybrake.apiKey,
        BILLING_PERIOD_CAP_CENTS: "1000",
      });
      const report = JSON.parse(result.out) as { completed: number; refused: number; outcomes: { key: { customerId: string }; detail?: string }[] };
      // The second is over the vault key's cap: refused by the vault, before Stripe, and left for an operator.
      expect(report).toMatchObject({ completed: 1, refused: 1 });
      expect(report.outcomes.find((o) => o.key.customerId === "vault-2")?.detail).toMatch(/SpendCap|spend.cap/i);
      expect(keybrake.keys()).toEqual([expect.objectContaining({ label: "chargeguard-2026-11", capCents: 1_100 })]);
      expect(customers.map((id) => emulator.ledger.paymentIntents(id).length)).toEqual([1, 0]);
      expect(result.exitCode).toBe(3);
    } finally {
      await keybrake.stop();
    }
  });

  it("--dry-run with vault keys mints no vault key (issue 30, suspect 8c): it plans without asking Stripe, inside the key window or past it", async () => {
    const keybrake = await startKeybrakeEmulator({ stripeApiBase: emulator.apiBase });
    try {
      const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
      const customer = await stripe.customers.create({ name: "dry" });
      const idempotencyKey = stableKey({ customerId: "dry-1", billingPeriod: "2026-12", amountCents: 300, currency: "usd" }, { scope: "billing" });
      const guard = await Guard.open(database.options);
      await strandBilling(guard, {
        customerId: "dry-1", billingPeriod: "2026-12", amountCents: 300, currency: "usd", idempotencyKey,
        request: {
          amount: 300, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true,
          metadata: { idempotency_key: idempotencyKey, customer_id: "dry-1", billing_period: "2026-12" },
        },
      });
      await guard.close();
      // A second one stranded two days ago, past Stripe's key window: only a look-up at Stripe can say what happened.
      const lapsed = await Guard.open({ ...database.options, clock: { now: () => Date.now() - 2 * 24 * 3_600_000 } });
      const oldKey = stableKey({ customerId: "dry-old", billingPeriod: "2026-12", amountCents: 301, currency: "usd" }, { scope: "billing" });
      await strandBilling(lapsed, {
        customerId: "dry-old", billingPeriod: "2026-12", amountCents: 301, currency: "usd", idempotencyKey: oldKey,
        request: { amount: 301, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { idempotency_key: oldKey } },
      });
      await lapsed.close();

      const env = { KEYBRAKE_URL: keybrake.baseUrl, KEYBRAKE_API_KEY: keybrake.apiKey, BILLING_PERIOD_CAP_CENTS: "1000" };
      const dry = await run([...database.args, "--flow", "payment-intent", "--dry-run", "--json"], env);
      const report = JSON.parse(dry.out) as { dryRun: boolean; outcomes: { key: { customerId: string }; action: string; detail?: string }[] };
      expect(report.dryRun).toBe(true);
      expect(report.outcomes.find((o) => o.key.customerId === "dry-1")).toMatchObject({ action: "would-rerun" });
      // Past the window the real run would look it up at Stripe first; the dry run says so and asks Stripe nothing.
      expect(report.outcomes.find((o) => o.key.customerId === "dry-old")).toMatchObject({ action: "would-rerun", detail: expect.stringMatching(/past the key window: looks up first/) });
      const withReadKey = await run([...database.args, "--flow", "payment-intent", "--dry-run", "--stripe-api-base", emulator.apiBase], { ...env, STRIPE_API_KEY: "rk_test_sandbox" });
      expect(withReadKey.out).toMatch(/dry run: nothing charged or recorded/);
      expect(keybrake.keyServiceStats.issued).toBe(0);
      expect(keybrake.keys()).toEqual([]);
      expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(0);
      // The real run then charges through the vault as the consumer does.
      const real = await run([...database.args, "--flow", "payment-intent", "--json"], env);
      expect(JSON.parse(real.out)).toMatchObject({ dryRun: false });
      expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(2);
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
    const report = JSON.parse(result.out) as { examined: number; completed: number };
    expect(report).toMatchObject({ examined: 1, completed: 1 });
    expect(emulator.ledger.invoices(customer.id).map((i) => [i.status, i.amount_paid])).toEqual([["paid", 700]]);
    expect(result.exitCode).toBeUndefined();
    await expect(run([...database.args, "--flow", "nope"], env)).rejects.toThrow(/--flow must be one of payment-intent, charge, invoice, meter-event/);
  });

  it("names a pending billing still under a consumer's lease (as right after a crash) and when to rerun, and leaves it alone", async () => {
    const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
    const customer = await stripe.customers.create({ name: "leased" });
    const input = { scope: "billing", flow: "payment-intent", key: { customerId: "leased-1", billingPeriod: "2026-10" }, payload: { amount: 900, currency: "usd", customer: customer.id } };
    const guard = await Guard.open(database.options);
    // A consumer claimed it and died before any answer (SIGKILL): nothing released the lease, which holds an hour.
    const claim = await guard.claim({ ...input, ...identify(input), spend: { period: "2026-10", currency: "usd", amount: 900 }, owner: "consumer-killed", leaseMs: 3_600_000 });
    if (claim.status !== "claimed") throw new Error(`expected a claim, got ${claim.status}`);
    await guard.close();
    const until = claim.lease.lockedUntil.toISOString();

    const env = { STRIPE_API_KEY: "rk_test_sandbox" };
    for (const args of [["--dry-run"], []]) {
      const result = await run([...database.args, "--stripe-api-base", emulator.apiBase, ...args], env);
      expect(result.out).toContain(`skipped (lease held)  1: a consumer may still be billing them; rerun after ${until} if they are still pending`);
      expect(result.out).toContain(`payment-intent billing {"billingPeriod":"2026-10","customerId":"leased-1"}: lease held until ${until}`);
    }
    const json = JSON.parse((await run([...database.args, "--stripe-api-base", emulator.apiBase, "--json"], env)).out) as { leased: unknown[] };
    expect(json.leased).toEqual([{ scope: "billing", key: input.key, flow: "payment-intent", lockedUntil: until }]);
    // Left to its lease: nothing charged.
    expect(emulator.ledger.paymentIntents(customer.id)).toHaveLength(0);
  });

  it("says what is missing when there is no database or no Stripe key", async () => {
    await expect(run(["--stripe-api-base", emulator.apiBase], { STRIPE_API_KEY: "rk_test_sandbox" })).rejects.toThrow(
      /needs the billing database: --database-url URL, env DATABASE_URL, or --data-dir DIR/,
    );
    await expect(run(["--data-dir", dataDir], { STRIPE_API_KEY: undefined })).rejects.toThrow(/needs the consumer.s Stripe access: KEYBRAKE_URL and KEYBRAKE_API_KEY .*or STRIPE_API_KEY/);
    await expect(run(["--data-dir", dataDir, "--limit", "0"], { STRIPE_API_KEY: "rk_test_sandbox" })).rejects.toThrow(/--limit <n>. argument .0. is invalid. allowed: a whole number from 1 up/);
    // A password on the command line shows in ps: refused, naming the alternatives and not the password.
    const refused = run(["--database-url", "postgres://app:pa55word@127.0.0.1:9/billing"], { STRIPE_API_KEY: "rk_test_sandbox" });
    await expect(refused).rejects.toThrow(/--database-url carries a secret.*DATABASE_URL.*--database-url-file/);
    await expect(refused).rejects.not.toThrow(/pa55word/);
  });

  it("sends a live key only to Stripe: a loopback http base (a leftover sandbox port) is refused before any request", async () => {
    const live = ["rk", "live", "51LiveRestricted00"].join("_");
    const before = emulator.ledger.paymentIntents().length;
    await expect(run([...database.args, "--stripe-api-base", emulator.apiBase], { STRIPE_API_KEY: live })).rejects.toThrow(/plain http: only a test key/);
    await expect(run([...database.args], { KEYBRAKE_URL: emulator.apiBase, KEYBRAKE_API_KEY: "kb_account_key", BILLING_PERIOD_CAP_CENTS: "1000" })).rejects.toThrow(/KEYBRAKE_URL uses plain http/);
    expect(emulator.ledger.paymentIntents()).toHaveLength(before);
  });

  it("prints customer ids and details with their control characters escaped", async () => {
    const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
    const customer = await stripe.customers.create({ name: "escapes" });
    const customerId = "evil\u001b]0;pwned\u0007\u001b[2J\u202e";
    const idempotencyKey = stableKey({ customerId, billingPeriod: "2026-09", amountCents: 300, currency: "usd" }, { scope: "billing" });
    const guard = await Guard.open(database.options);
    await strandBilling(guard, {
      customerId, billingPeriod: "2026-09", amountCents: 300, currency: "usd", idempotencyKey,
      request: {
        amount: 300, currency: "usd", customer: customer.id, payment_method: "pm_card_visa", confirm: true, off_session: true,
        metadata: { idempotency_key: idempotencyKey, customer_id: "escapes", billing_period: "2026-09" },
      },
    });
    await guard.close();
    const text = await run([...database.args, "--stripe-api-base", emulator.apiBase, "--dry-run"], { STRIPE_API_KEY: "rk_test_sandbox" });
    expect(text.out).toContain("evil\\u001b]0;pwned\\u0007");
    expect(text.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    const json = await run([...database.args, "--stripe-api-base", emulator.apiBase, "--dry-run", "--json"], { STRIPE_API_KEY: "rk_test_sandbox" });
    expect(json.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect((JSON.parse(json.out) as { outcomes: { key: { customerId: string } }[] }).outcomes.map((o) => o.key.customerId)).toContain(customerId);
  });
});
