// The run contract: what `npm start` reads, and how it says what is missing.
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../src/config.js";
import { settings } from "../src/settings.js";

const base = {
  SERVICEBUS_CONNECTION_STRING: "Endpoint=sb://127.0.0.1:5672;SharedAccessKeyName=k;SharedAccessKey=v;UseDevelopmentEmulator=true",
  STRIPE_API_KEY: "rk_test_sandbox",
  KEYBRAKE_URL: "http://127.0.0.1:4010",
  KEYBRAKE_API_KEY: "kb_test_sandbox",
  BILLING_PERIOD_CAP_CENTS: "500000",
  DATABASE_URL: "postgres://127.0.0.1:5432/billing",
};

describe("readConfig", () => {
  it("reads the run contract", () => {
    const config = readConfig({ ...base, SERVICEBUS_QUEUE: "other-queue", STRIPE_API_BASE: "http://127.0.0.1:12111" });
    expect(config).toMatchObject({ queueName: "other-queue", periodCapCents: 500_000, stripeApiBase: "http://127.0.0.1:12111" });
  });

  it("defaults the queue to the generated one", () => {
    expect(readConfig(base).queueName).toBe(settings.queue);
  });

  it("names every missing setting at once", () => {
    let error: unknown;
    try {
      readConfig({});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain("SERVICEBUS_CONNECTION_STRING");
    expect((error as ConfigError).problems.length).toBeGreaterThanOrEqual(2);
  });

  it("accepts a namespace for DefaultAzureCredential instead of a connection string", () => {
    const { SERVICEBUS_CONNECTION_STRING: _, ...rest } = base;
    const config = readConfig({ ...rest, SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: "billing.servicebus.windows.net" });
    expect(config).toMatchObject({ connectionString: "", fullyQualifiedNamespace: "billing.servicebus.windows.net" });
  });

  it("reads messages in flight and Stripe calls at a time, one of each by default", () => {
    expect(readConfig(base)).toMatchObject({ maxConcurrentCalls: 1, maxConcurrentStripeCalls: 1 });
    expect(readConfig({ ...base, MAX_CONCURRENT_CALLS: "32" })).toMatchObject({ maxConcurrentCalls: 32, maxConcurrentStripeCalls: 32 });
    expect(readConfig({ ...base, MAX_CONCURRENT_CALLS: "32", MAX_CONCURRENT_STRIPE_CALLS: "16" })).toMatchObject({ maxConcurrentStripeCalls: 16 });
  });

  it("refuses concurrency that is not a positive whole number, or more or under half as many Stripe calls as messages", () => {
    expect(() => readConfig({ ...base, MAX_CONCURRENT_CALLS: "0" })).toThrow(/MAX_CONCURRENT_CALLS must be a positive whole number/);
    expect(() => readConfig({ ...base, MAX_CONCURRENT_CALLS: "8", MAX_CONCURRENT_STRIPE_CALLS: "3" })).toThrow(
      /MAX_CONCURRENT_STRIPE_CALLS \(3\) must be between half of MAX_CONCURRENT_CALLS \(8\) and all of it/,
    );
    expect(() => readConfig({ ...base, MAX_CONCURRENT_STRIPE_CALLS: "2" })).toThrow(/between half of MAX_CONCURRENT_CALLS \(1\)/);
  });

  it("refuses a malformed spend cap", () => {
    expect(() => readConfig({ ...base, BILLING_PERIOD_CAP_CENTS: "12.50" })).toThrow(/BILLING_PERIOD_CAP_CENTS/);
  });

  it("signs in to PostgreSQL with Entra on DATABASE_AUTH=entra, with no password in DATABASE_URL", () => {
    const entraUrl = "postgres://id-usage-billing-consumer@psql-billing.postgres.database.azure.com:5432/billing?sslmode=require";
    expect(readConfig({ ...base, DATABASE_URL: entraUrl, DATABASE_AUTH: "entra" })).toMatchObject({ databaseUrl: entraUrl, databaseAuth: "entra" });
    expect(readConfig({ ...base, DATABASE_AUTH: "password" })).not.toHaveProperty("databaseAuth");
    expect(() => readConfig({ ...base, DATABASE_URL: "postgres://app:secret@db:5432/billing", DATABASE_AUTH: "entra" })).toThrow(
      /DATABASE_AUTH=entra: DATABASE_URL must not carry a password/,
    );
    expect(() => readConfig({ ...base, DATABASE_AUTH: "token" })).toThrow(/DATABASE_AUTH must be "password" .* or "entra"/);
  });

  it("names the variable of every malformed value, all at once", () => {
    let error: unknown;
    try {
      readConfig({
        ...base,
        MAX_CONCURRENT_CALLS: "four",
        STRIPE_REQUESTS_PER_SECOND: "fast",
        BILLING_PERIOD_CAP_CENTS: "-5",
        STRIPE_API_KEY: ["sk", "live", "abc"].join("_"),
        STRIPE_API_BASE: "ftp://stripe",
        HEALTH_PORT: "80000",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const named = (error as ConfigError).problems.map((problem) => problem.split(/[\s=]/)[0]).sort();
    expect(named).toEqual(["BILLING_PERIOD_CAP_CENTS", "HEALTH_PORT", "MAX_CONCURRENT_CALLS", "STRIPE_API_BASE", "STRIPE_API_KEY", "STRIPE_REQUESTS_PER_SECOND"]);
    expect((error as ConfigError).message).toContain("MAX_CONCURRENT_CALLS must be a positive whole number");
    // The variable and the problem, never the value: a secret set in the wrong variable must not reach the log.
    expect((error as ConfigError).message).not.toContain("four");
    expect((error as ConfigError).message).toContain("STRIPE_API_KEY is a live secret key");
  });

  it("never repeats a rejected value: a connection string in the namespace variable keeps its key out of the error", () => {
    const { SERVICEBUS_CONNECTION_STRING: connectionString, ...rest } = base;
    const secretKey = "c2VjcmV0LWtleQ==";
    let error: unknown;
    try {
      readConfig({ ...rest, SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: connectionString.replace("=v;", `=${secretKey};`), HEALTH_PORT: "pa55word" });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).message).toContain("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE must be a host name");
    expect((error as ConfigError).message).toContain("HEALTH_PORT must be a TCP port");
    for (const secret of [secretKey, "pa55word", "SharedAccessKey"]) expect((error as ConfigError).message).not.toContain(secret);
  });

  it("refuses to send a live key over plain http or to a host that is not Stripe", () => {
    const live = ["rk", "live", "51LiveRestricted00"].join("_");
    if (settings.vault === "keybrake") {
      expect(() => readConfig({ ...base, KEYBRAKE_API_KEY: "kb_account_key" })).toThrow(/KEYBRAKE_URL uses plain http/);
      expect(readConfig({ ...base, KEYBRAKE_URL: "https://proxy.keybrake.example", KEYBRAKE_API_KEY: "kb_account_key" }).keybrake).toBeDefined();
    } else {
      expect(() => readConfig({ ...base, STRIPE_API_KEY: live, STRIPE_API_BASE: "http://127.0.0.1:12111" })).toThrow(/plain http/);
      expect(() => readConfig({ ...base, STRIPE_API_KEY: live, STRIPE_API_BASE: "https://stripe.evil.example" })).toThrow(/STRIPE_ALLOWED_ORIGINS/);
      expect(readConfig({ ...base, STRIPE_API_KEY: live }).stripeApiKey).toBe(live);
    }
  });

  it("reads the fleet's Stripe ceiling the deployment sets (STRIPE_REQUESTS_PER_SECOND)", () => {
    expect(readConfig({ ...base, STRIPE_REQUESTS_PER_SECOND: "12.5" })).toMatchObject({ stripeRequestsPerSecond: 12.5 });
    expect(readConfig(base)).not.toHaveProperty("stripeRequestsPerSecond");
  });
});
