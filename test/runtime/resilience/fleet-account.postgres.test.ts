// Issue 30, suspect 8b, settled: with vault keys the consumer's Stripe key is empty, and the fleet's budget was keyed
// by `accountLabel(apiKey || apiBase || "stripe")`: every Keybrake-backed consumer, whatever Stripe account its vault
// is bound to, shared one budget row ("stripe"), so one account's 429s slowed another's. The account is now named by
// the key provider (a Keybrake account: its URL and account key, hashed); replicas of one account still share.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyConsumerOptions } from "../../../runtime/consumer/consumer-settings.js";
import { consumerSettings } from "../../../runtime/consumer/consumer-settings.js";
import { startResilience } from "../../../runtime/consumer/consumer-resilience.js";
import { accountLabel } from "../../../runtime/resilience/fleet-budget.js";
import { stripeAccess } from "../../../runtime/stripe/stripe-access.js";
import { KeybrakeKeyProvider } from "../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../sandbox/keybrake/index.js";
import { createScratchDatabase, postgresServerUrl } from "../guard/databases.js";

let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let vaults: KeybrakeEmulator[];

beforeAll(async () => {
  database = await createScratchDatabase(await postgresServerUrl());
  // Two Keybrake accounts, as two Stripe accounts' vaults (the emulator forwards nowhere here: no call is made).
  vaults = [await startKeybrakeEmulator({ stripeApiBase: "http://127.0.0.1:9", apiKey: "kb_test_one" }), await startKeybrakeEmulator({ stripeApiBase: "http://127.0.0.1:9", apiKey: "kb_test_two" })];
});
afterAll(async () => {
  await Promise.all((vaults ?? []).map((vault) => vault.stop()));
  await database?.drop();
});

/** A consumer's resilience as the consumer starts it, with vault keys and no Stripe key of its own. */
async function replica(vault: KeybrakeEmulator, owner: string) {
  const keyProvider = new KeybrakeKeyProvider({ baseUrl: vault.baseUrl, apiKey: vault.apiKey });
  const options = { stripe: { apiKey: "" }, keyProvider, databaseUrl: database.url, expectedPeriodTotalCents: 1_000 } as unknown as AnyConsumerOptions;
  const settings = consumerSettings(options);
  const stripe = stripeAccess({ keys: keyProvider, timeoutMs: 2_000, maxNetworkRetries: 0 });
  return startResilience({ options, settings, stripe, owner, log: () => {} });
}

async function accountsOf(owners: string[]): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const rows = await client.query<{ member: string; account: string }>("SELECT DISTINCT member, account FROM chargeguard_stripe_budget_members WHERE member = ANY($1)", [owners]);
    return new Map(rows.rows.map((row) => [row.member, row.account]));
  } finally {
    await client.end();
  }
}

describe("the fleet's Stripe budget per account with vault keys (issue 30, suspect 8b)", () => {
  it("two Keybrake accounts keep two budgets; two replicas of one account share one", async () => {
    const running = [await replica(vaults[0] as KeybrakeEmulator, "one-a"), await replica(vaults[0] as KeybrakeEmulator, "one-b"), await replica(vaults[1] as KeybrakeEmulator, "two-a")];
    try {
      const accounts = await accountsOf(["one-a", "one-b", "two-a"]);
      expect(accounts.size).toBe(3);
      expect(accounts.get("one-a")).toBe(accounts.get("one-b"));
      expect(accounts.get("one-a")).not.toBe(accounts.get("two-a"));
      expect(accounts.get("two-a")).not.toBe(accountLabel("stripe"));
      // Not a secret in the database: neither account key appears in the label.
      for (const account of accounts.values()) expect(account).not.toMatch(/kb_test/);
    } finally {
      await Promise.all(running.map((resilience) => resilience.close()));
    }
  });
});
