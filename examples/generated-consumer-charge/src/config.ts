// The run contract: every setting comes from the environment, and every missing or malformed one is reported by
// name, all at once, before anything connects.
import { settings } from "./settings.js";

export interface Config {
  /** Empty when the namespace is given instead (DefaultAzureCredential). */
  connectionString: string;
  fullyQualifiedNamespace?: string;
  queueName: string;
  databaseUrl?: string;
  /** DATABASE_AUTH=entra: sign in to PostgreSQL with the app identity's Entra token (no password in DATABASE_URL). */
  databaseAuth?: "entra";
  /** Embedded database directory, when there is no DATABASE_URL. */
  dataDir?: string;
  stripeApiKey?: string;
  stripeApiBase?: string;
  keybrake?: { baseUrl: string; apiKey: string };
  periodCapCents?: number;
  /** Messages in flight. */
  maxConcurrentCalls: number;
  /** Stripe calls at a time among them. */
  maxConcurrentStripeCalls: number;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(`configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
  }
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const value = (name: string) => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === "" ? undefined : raw;
  };

  const connectionString = value("SERVICEBUS_CONNECTION_STRING");
  const fullyQualifiedNamespace = value("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE");
  if (connectionString === undefined && fullyQualifiedNamespace === undefined) {
    problems.push(
      "SERVICEBUS_CONNECTION_STRING is not set (or set SERVICEBUS_FULLY_QUALIFIED_NAMESPACE, e.g. my-ns.servicebus.windows.net, to sign in with DefaultAzureCredential)",
    );
  }
  if (fullyQualifiedNamespace !== undefined && !/^[a-z0-9.-]+$/i.test(fullyQualifiedNamespace)) {
    problems.push(`SERVICEBUS_FULLY_QUALIFIED_NAMESPACE must be a host name like my-ns.servicebus.windows.net, got "${fullyQualifiedNamespace}"`);
  }

  const databaseUrl = value("DATABASE_URL");
  if (databaseUrl === undefined && settings.database === "postgres") {
    problems.push("DATABASE_URL is not set (this consumer was generated with --db postgres)");
  }
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push("DATABASE_URL must start with postgres:// or postgresql://");
  }
  const databaseAuth = value("DATABASE_AUTH");
  if (databaseAuth !== undefined && databaseAuth !== "password" && databaseAuth !== "entra") {
    problems.push(`DATABASE_AUTH must be "password" (the default: DATABASE_URL carries it) or "entra" (a Microsoft Entra token), got "${databaseAuth}"`);
  }
  if (databaseAuth === "entra" && databaseUrl === undefined) problems.push("DATABASE_AUTH=entra needs DATABASE_URL (the server, database and Entra user, no password)");
  if (databaseAuth === "entra" && databaseUrl !== undefined && /^postgres(ql)?:\/\/[^/@]*:[^/@]*@/.test(databaseUrl)) {
    problems.push("DATABASE_AUTH=entra: DATABASE_URL must not carry a password (the Entra token is the password)");
  }

  const stripeApiKey = value("STRIPE_API_KEY");
  const stripeApiBase = value("STRIPE_API_BASE");
  if (stripeApiBase !== undefined && !/^https?:\/\/[^/]+\/?$/.test(stripeApiBase)) {
    problems.push(`STRIPE_API_BASE must be an origin like http://127.0.0.1:12111, got "${stripeApiBase}"`);
  }
  let keybrake: Config["keybrake"];
  if (settings.vault === "keybrake") {
    const baseUrl = value("KEYBRAKE_URL");
    const apiKey = value("KEYBRAKE_API_KEY");
    if (baseUrl === undefined) problems.push("KEYBRAKE_URL is not set (the vault proxy, e.g. https://proxy.keybrake.com)");
    if (apiKey === undefined) problems.push("KEYBRAKE_API_KEY is not set (the Keybrake account key that creates vault keys)");
    if (baseUrl !== undefined && apiKey !== undefined) keybrake = { baseUrl, apiKey };
  } else if (stripeApiKey === undefined) {
    problems.push("STRIPE_API_KEY is not set (a restricted key, rk_..., allowed to write PaymentIntents)");
  }

  const cap = value("BILLING_PERIOD_CAP_CENTS");
  let periodCapCents: number | undefined;
  if (cap !== undefined) {
    periodCapCents = Number(cap);
    if (!/^\d+$/.test(cap) || !Number.isSafeInteger(periodCapCents) || periodCapCents <= 0) {
      problems.push(`BILLING_PERIOD_CAP_CENTS must be a positive whole number of cents, got "${cap}"`);
    }
  } else if (settings.vault === "keybrake") {
    problems.push("BILLING_PERIOD_CAP_CENTS is not set (it sizes each billing period's vault key cap)");
  }

  const wholeNumber = (name: string, fallback: number): number => {
    const raw = value(name);
    const parsed = Number(raw ?? fallback);
    if (raw !== undefined && (!/^\d+$/.test(raw) || !Number.isSafeInteger(parsed) || parsed < 1)) {
      problems.push(`${name} must be a positive whole number, got "${raw}"`);
    }
    return parsed;
  };
  const maxConcurrentCalls = wholeNumber("MAX_CONCURRENT_CALLS", 1);
  const maxConcurrentStripeCalls = wholeNumber("MAX_CONCURRENT_STRIPE_CALLS", maxConcurrentCalls);
  if (maxConcurrentStripeCalls > maxConcurrentCalls || 2 * maxConcurrentStripeCalls < maxConcurrentCalls) {
    problems.push(
      `MAX_CONCURRENT_STRIPE_CALLS (${maxConcurrentStripeCalls}) must be between half of MAX_CONCURRENT_CALLS (${maxConcurrentCalls}) and all of it`,
    );
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    connectionString: connectionString ?? "",
    ...(connectionString === undefined && fullyQualifiedNamespace !== undefined ? { fullyQualifiedNamespace } : {}),
    queueName: value("SERVICEBUS_QUEUE") ?? settings.queue,
    ...(databaseUrl === undefined ? { dataDir: settings.dataDir } : { databaseUrl }),
    ...(databaseAuth === "entra" ? { databaseAuth: "entra" as const } : {}),
    ...(stripeApiKey === undefined ? {} : { stripeApiKey }),
    ...(stripeApiBase === undefined ? {} : { stripeApiBase }),
    ...(keybrake === undefined ? {} : { keybrake }),
    ...(periodCapCents === undefined ? {} : { periodCapCents }),
    maxConcurrentCalls,
    maxConcurrentStripeCalls,
  };
}
