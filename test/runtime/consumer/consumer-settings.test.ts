import { describe, expect, it, vi } from "vitest";
import { tuneQueue } from "../../../tuning/index.js";
import { startBillingConsumer } from "../../../runtime/consumer/consumer.js";
import { ChargeguardError, ConfigurationError } from "../../../runtime/index.js";
import { KeybrakeKeyProvider } from "../../../runtime/stripe/vault/keybrake-key-provider.js";

const base = {
  serviceBus: { connectionString: "Endpoint=sb://127.0.0.1:1;SharedAccessKeyName=k;SharedAccessKey=v;UseDevelopmentEmulator=true", queueName: "billing" },
  stripe: { apiKey: "rk_test_sandbox" },
  log: () => {},
};

describe("startBillingConsumer refuses settings that do not agree, before connecting", () => {
  it("a renewal deadline the queue's lock cannot cover", async () => {
    // 4 attempts x 80 s do not fit one 5-minute lock: the consumer must renew for twice the delivery budget.
    const tuning = tuneQueue({ stripe: { timeoutMs: 80_000, maxNetworkRetries: 3 } });
    await expect(
      startBillingConsumer({ ...base, tuning, maxAutoLockRenewalDurationInMs: 60_000 }),
    ).rejects.toThrow(/consumer settings do not fit queue billing: .*maxAutoLockRenewalDurationInMs to at least/);
  });

  it.each([
    { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 5, error: /between half of maxConcurrentCalls \(4\) and all of it/ },
    { maxConcurrentCalls: 9, maxConcurrentStripeCalls: 4, error: /between half of maxConcurrentCalls \(9\) and all of it/ },
    { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 0, error: /maxConcurrentStripeCalls must be a positive integer, got 0/ },
    { maxConcurrentCalls: 2.5, maxConcurrentStripeCalls: 2, error: /maxConcurrentCalls must be a positive integer, got 2.5/ },
  ])("Stripe calls at a time outside [messages in flight / 2, messages in flight]: $maxConcurrentStripeCalls for $maxConcurrentCalls", async (settings) => {
    const { error, ...concurrency } = settings;
    await expect(startBillingConsumer({ ...base, ...concurrency })).rejects.toThrow(error);
  });

  it("messages waiting for a Stripe slot when the lock covers only one delivery", async () => {
    // Two 60 s attempts fit one lock with no renewal, but a wait for a slot plus a delivery does not.
    const tuning = tuneQueue({ stripe: { timeoutMs: 60_000, maxNetworkRetries: 1 } });
    expect(tuning.consumer.maxAutoLockRenewalDurationInMs).toBe(0);
    expect(tuning.lockDurationMs).toBeGreaterThanOrEqual(tuning.deliveryBudgetMs);
    await expect(startBillingConsumer({ ...base, tuning, maxConcurrentCalls: 8, maxConcurrentStripeCalls: 4 })).rejects.toThrow(
      /with 8 messages in flight for 4 Stripe calls a message may be held \d+ ms .* but the lock covers \d+ ms/,
    );
  });

  it.each([
    { retryPolicy: { baseDelayMs: 0 }, error: /retry policy baseDelayMs must be a positive integer, got 0/ },
    { retryPolicy: { maxAttempts: 2.5 }, error: /retry policy maxAttempts must be a positive integer, got 2.5/ },
    { retryPolicy: { baseDelayMs: 5_000, maxDelayMs: 1_000 }, error: /maxDelayMs \(1000\) must not be below baseDelayMs \(5000\)/ },
  ])("a retry policy that cannot schedule: $retryPolicy", async ({ retryPolicy, error }) => {
    await expect(startBillingConsumer({ ...base, retryPolicy })).rejects.toThrow(error);
  });

  it("a vault key provider without the period's expected total", async () => {
    const keyProvider = new KeybrakeKeyProvider({ baseUrl: "http://127.0.0.1:1", apiKey: "kb_test_sandbox" });
    await expect(startBillingConsumer({ ...base, keyProvider })).rejects.toThrow(/expectedPeriodTotalCents/);
  });

  it("an idempotency key scope stableKey refuses", async () => {
    await expect(startBillingConsumer({ ...base, scope: "no spaces" })).rejects.toThrow(/scope "no spaces" is invalid/);
  });

  it("a malformed STRIPE_REQUESTS_PER_SECOND, named without repeating its value (a secret set there must not be logged)", async () => {
    vi.stubEnv("STRIPE_REQUESTS_PER_SECOND", "Endpoint=sb://x/;SharedAccessKey=c2VjcmV0");
    try {
      const error = await startBillingConsumer({ ...base }).then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(String(error)).toMatch(/STRIPE_REQUESTS_PER_SECOND must be a positive number/);
      expect(String(error)).not.toContain("c2VjcmV0");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("a live key sent to a Stripe API base that is not Stripe, or over plain http", async () => {
    const live = ["rk", "live", "51LiveRestricted00"].join("_");
    await expect(startBillingConsumer({ ...base, stripe: { apiKey: live, apiBase: "http://127.0.0.1:12111" } })).rejects.toThrow(/plain http/);
    await expect(startBillingConsumer({ ...base, stripe: { apiKey: live, apiBase: "https://stripe.evil.example" } })).rejects.toThrow(/STRIPE_ALLOWED_ORIGINS/);
  });

  it("a live secret key", async () => {
    await expect(startBillingConsumer({ ...base, stripe: { apiKey: "sk_live_" + "x" } })).rejects.toThrow(/live secret key/);
  });

  it("no database and no in-memory store asked for by name: refused, instead of forgetting every claim at the next restart", async () => {
    const error = await startBillingConsumer({ ...base }).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String(error)).toMatch(/nowhere durable to keep its records: give databaseUrl .*dataDir .*inMemory: true is for tests and demos only/);
  });

  it("every refusal at start is a ConfigurationError (what a consumer's main stops on), exported by name", async () => {
    const refusals = [
      { maxConcurrentCalls: 0 },
      { retryPolicy: { baseDelayMs: 0 } },
      { scope: "no spaces" },
      { stripe: { apiKey: "" } },
      { leaseMs: -1 },
      { tuning: tuneQueue({ stripe: { timeoutMs: 80_000, maxNetworkRetries: 3 } }), maxAutoLockRenewalDurationInMs: 60_000 },
    ];
    for (const refusal of refusals) {
      const error = await startBillingConsumer({ ...base, ...refusal }).then(() => undefined, (caught: unknown) => caught);
      expect(error, JSON.stringify(refusal)).toBeInstanceOf(ConfigurationError);
      expect(error, JSON.stringify(refusal)).toBeInstanceOf(ChargeguardError);
    }
  });
});
