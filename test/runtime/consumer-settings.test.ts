import { describe, expect, it } from "vitest";
import { tuneQueue } from "../../infra/tuning.js";
import { startBillingConsumer } from "../../runtime/consumer.js";
import { KeybrakeKeyProvider } from "../../runtime/vault/keybrake-key-provider.js";

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

  it("a vault key provider without the period's expected total", async () => {
    const keyProvider = new KeybrakeKeyProvider({ baseUrl: "http://127.0.0.1:1", apiKey: "kb_test_sandbox" });
    await expect(startBillingConsumer({ ...base, keyProvider })).rejects.toThrow(/expectedPeriodTotalCents/);
  });

  it("an idempotency key scope stableKey refuses", async () => {
    await expect(startBillingConsumer({ ...base, scope: "no spaces" })).rejects.toThrow(/scope "no spaces" is invalid/);
  });

  it("a live secret key", async () => {
    await expect(startBillingConsumer({ ...base, stripe: { apiKey: "sk_live_" + "x" } })).rejects.toThrow(/live secret key/);
  });
});
