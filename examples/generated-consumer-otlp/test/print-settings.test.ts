// `npm start -- --print-settings`: the numbers the consumer runs with, and no secret among them.
import { tuneQueue } from "chargeguard/tuning";
import { describe, expect, it } from "vitest";
import { queueTuning, stripeCallsPerMessage } from "../src/consumer.js";
import { effectiveSettings } from "../src/print-settings.js";

const secrets = {
  SERVICEBUS_CONNECTION_STRING: "Endpoint=sb://billing.servicebus.windows.net/;SharedAccessKeyName=consumer;SharedAccessKey=c2VjcmV0LWtleQ==",
  // Assembled, so the file holds no key-shaped literal: what matters is that the printed settings hold none either.
  STRIPE_API_KEY: ["rk", "live", "51SECRETsecretSECRET"].join("_"),
  DATABASE_URL: "postgres://billing:pa55word@db.internal:5432/billing?sslpassword=hunter2",
};

describe("effectiveSettings", () => {
  it("reports the queue's tuning: the numbers the consumer starts with", () => {
    expect(effectiveSettings(secrets).tuning).toEqual({
      lockDurationMs: queueTuning.lockDurationMs,
      maxAutoLockRenewalDurationInMs: queueTuning.consumer.maxAutoLockRenewalDurationInMs,
      stripeTimeoutMs: queueTuning.consumer.stripeTimeoutMs,
      stripeMaxNetworkRetries: queueTuning.consumer.stripeMaxNetworkRetries,
    });
  });

  it("redacts every secret and keeps what identifies the endpoints", () => {
    const printed = JSON.stringify(effectiveSettings(secrets));
    for (const secret of ["c2VjcmV0LWtleQ==", "51SECRETsecretSECRET", "pa55word", "hunter2"]) expect(printed).not.toContain(secret);
    expect(printed).toContain("sb://billing.servicebus.windows.net/");
    expect(printed).toContain("rk_live_[redacted]");
    expect(printed).toContain("db.internal:5432/billing");
  });

  it("lists what npm start would refuse instead of failing", () => {
    expect(effectiveSettings({}).problems).toEqual(expect.arrayContaining([expect.stringContaining("SERVICEBUS_CONNECTION_STRING")]));
  });

  it("lists a wait for a Stripe slot that the queue's lock does not cover, as npm start would refuse it", () => {
    const env = { ...secrets, STRIPE_API_KEY: "rk_test_sandbox", MAX_CONCURRENT_CALLS: "8", MAX_CONCURRENT_STRIPE_CALLS: "4" };
    // This queue tuned for one message at a time: its lock covers one delivery, not a wait for a slot before it.
    const serial = tuneQueue({ ...queueTuning.budget, concurrency: undefined });
    expect(Math.max(serial.lockDurationMs, serial.consumer.maxAutoLockRenewalDurationInMs)).toBeLessThan(2 * serial.deliveryBudgetMs);
    expect(effectiveSettings(env, serial).problems).toEqual([expect.stringMatching(/with 8 messages in flight for 4 Stripe calls a message may be held \d+ ms/)]);
    // Tuned for a pipelined consumer (what `--stack` writes when the stack's app pipelines), it fits.
    const pipelined = tuneQueue({ ...queueTuning.budget, concurrency: { maxConcurrentCalls: 8, maxConcurrentStripeCalls: 4, stripeCallsPerMessage } });
    expect(effectiveSettings(env, pipelined).problems).toEqual([]);
  });
});
