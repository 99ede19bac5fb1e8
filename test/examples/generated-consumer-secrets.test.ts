// The generated consumer (its committed sources, run on the runtime's sources) echoes no secret: a rejected value is
// never quoted in a configuration error, `--print-settings` redacts user info and keys wherever they were put, and a
// live key is refused for a destination that is not Stripe.
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../examples/generated-consumer/src/config.js";
import { effectiveSettings } from "../../examples/generated-consumer/src/print-settings.js";

const sasKey = "c2VjcmV0LWtleQ==";
const connectionString = `Endpoint=sb://billing.servicebus.windows.net/;SharedAccessKeyName=consumer;SharedAccessKey=${sasKey}`;
const liveKey = ["rk", "live", "51SECRETsecretSECRET"].join("_");
const base = { SERVICEBUS_CONNECTION_STRING: connectionString, STRIPE_API_KEY: "rk_test_sandbox", DATABASE_URL: "postgres://127.0.0.1:5432/billing" };

function problemsOf(env: Record<string, string>): string {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("the generated consumer's configuration", () => {
  it("names the variable and the problem, never the value: a connection string in the namespace variable keeps its key", () => {
    const { SERVICEBUS_CONNECTION_STRING: _, ...rest } = base;
    const message = problemsOf({ ...rest, SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: connectionString, MAX_CONCURRENT_CALLS: "hunter2", HEALTH_PORT: liveKey });
    expect(message).toContain("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE must be a host name");
    expect(message).toContain("MAX_CONCURRENT_CALLS must be a positive whole number");
    expect(message).toContain("HEALTH_PORT must be a TCP port");
    for (const secret of [sasKey, "SharedAccessKey", "hunter2", "51SECRETsecretSECRET"]) expect(message).not.toContain(secret);
  });

  it("--print-settings lists those problems and redacts user info and keys wherever they were put", () => {
    const { SERVICEBUS_CONNECTION_STRING: _, ...rest } = base;
    const printed = JSON.stringify(
      effectiveSettings({
        ...rest,
        SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: connectionString,
        SERVICEBUS_QUEUE: `billing ${liveKey}`,
        DATABASE_URL: "postgres://billing:pa55word@db.internal:5432/billing?sslpassword=hunter2",
        STRIPE_API_BASE: "https://user:s3cret@api.stripe.com",
      }),
    );
    for (const secret of [sasKey, "pa55word", "hunter2", "s3cret", "51SECRETsecretSECRET"]) expect(printed).not.toContain(secret);
    expect(printed).toContain("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE must be a host name");
  });

  it("refuses a live key over plain http or to a host that is not Stripe, and accepts it for Stripe", () => {
    expect(problemsOf({ ...base, STRIPE_API_KEY: liveKey, STRIPE_API_BASE: "http://127.0.0.1:12111" })).toMatch(/STRIPE_API_BASE uses plain http/);
    expect(problemsOf({ ...base, STRIPE_API_KEY: liveKey, STRIPE_API_BASE: "https://stripe.evil.example" })).toMatch(/STRIPE_ALLOWED_ORIGINS/);
    expect(readConfig({ ...base, STRIPE_API_KEY: liveKey, STRIPE_API_BASE: "https://stripe-proxy.example", STRIPE_ALLOWED_ORIGINS: "https://stripe-proxy.example" }).stripeApiKey).toBe(liveKey);
    expect(readConfig({ ...base, STRIPE_API_KEY: liveKey }).stripeApiKey).toBe(liveKey);
  });
});
