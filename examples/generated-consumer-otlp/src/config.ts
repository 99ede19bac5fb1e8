// The run contract: every setting comes from the environment, read through one schema (zod), and every missing or
// malformed one is reported by its variable's name, all at once, before anything connects. A problem names the
// variable and what is wrong, never the value: a secret put in the wrong variable must not reach the log. The
// variables are read by chargeguard's one reader of the environment (consumerVariables), which documents each.
import { consumerVariables, keyDestinationProblem, processEnvironment, type ConsumerVariables, type Environment } from "chargeguard/runtime";
import { z } from "zod";
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
  /** The fleet-wide Stripe ceiling the deployment gives this consumer (the runtime reads it); absent: none set. */
  stripeRequestsPerSecond?: number;
  /** Where the container's probes are answered (src/health.ts); absent: no probe server (local runs). */
  healthPort?: number;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(`configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
  }
}

/** A whole number of at least 1, written as digits only ("08" is 8; "1e3", "2.0" and "-1" are refused). */
const positiveWhole = (name: string) =>
  z
    .string()
    .refine((raw) => /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) && Number(raw) >= 1, {
      error: `${name} must be a positive whole number`,
    })
    .transform(Number);

const originPattern = /^https?:\/\/[^/]+\/?$/;

const environmentSchema = z
  .object({
    SERVICEBUS_CONNECTION_STRING: z.string().optional(),
    SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9.-]+$/i, { error: "SERVICEBUS_FULLY_QUALIFIED_NAMESPACE must be a host name like my-ns.servicebus.windows.net" })
      .optional(),
    SERVICEBUS_QUEUE: z.string().optional(),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, { error: "DATABASE_URL must start with postgres:// or postgresql://" }).optional(),
    DATABASE_AUTH: z
      .enum(["password", "entra"], {
        error: "DATABASE_AUTH must be \"password\" (the default: DATABASE_URL carries it) or \"entra\" (a Microsoft Entra token)",
      })
      .optional(),
    // What the runtime's key provider refuses at start, named here too so `--print-settings` lists it.
    STRIPE_API_KEY: z
      .string()
      // The key as it is meant: " sk_live_..." from an env file is a live secret key.
      .trim()
      .refine((key) => !key.startsWith("sk_live_"), {
        error: "STRIPE_API_KEY is a live secret key (sk_live_...): a billing consumer must run with a restricted key (rk_live_...) limited to PaymentIntents",
      })
      .refine((key) => key.startsWith("sk_live_") || key.startsWith("rk_") || key.startsWith("sk_test_"), {
        error: "STRIPE_API_KEY does not look like a Stripe key: expected a restricted key (rk_...)",
      })
      .optional(),
    STRIPE_API_BASE: z
      .string()
      .regex(originPattern, { error: "STRIPE_API_BASE must be an origin like http://127.0.0.1:12111" })
      .optional(),
    // https origins besides api.stripe.com a live key may go to (comma-separated); the runtime reads it too.
    STRIPE_ALLOWED_ORIGINS: z.string().optional(),
    KEYBRAKE_URL: z.string().optional(),
    KEYBRAKE_API_KEY: z.string().optional(),
    BILLING_PERIOD_CAP_CENTS: z
      .string()
      .refine((raw) => /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) && Number(raw) > 0, {
        error: "BILLING_PERIOD_CAP_CENTS must be a positive whole number of cents",
      })
      .transform(Number)
      .optional(),
    MAX_CONCURRENT_CALLS: positiveWhole("MAX_CONCURRENT_CALLS").optional(),
    MAX_CONCURRENT_STRIPE_CALLS: positiveWhole("MAX_CONCURRENT_STRIPE_CALLS").optional(),
    HEALTH_PORT: z
      .string()
      .refine((raw) => /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 65_535, {
        error: "HEALTH_PORT must be a TCP port from 1 to 65535",
      })
      .transform(Number)
      .optional(),
    STRIPE_REQUESTS_PER_SECOND: z
      .string()
      .refine((raw) => /^\d+(\.\d+)?$/.test(raw) && Number(raw) > 0, {
        error: "STRIPE_REQUESTS_PER_SECOND must be a number of Stripe requests per second above 0, such as 20 or 12.5",
      })
      .transform(Number)
      .optional(),
  } satisfies Record<keyof ConsumerVariables, z.ZodType>)
  // Rules between variables; `when` runs them even when a variable failed above, so every problem is listed at once.
  .superRefine((env, context) => {
    for (const problem of crossVariableProblems(env)) context.addIssue({ code: "custom", message: problem });
  }, { when: () => true });

type ParsedVariables = z.output<typeof environmentSchema>;

function crossVariableProblems(env: ParsedVariables): string[] {
  const problems: string[] = [];
  if (env.SERVICEBUS_CONNECTION_STRING === undefined && env.SERVICEBUS_FULLY_QUALIFIED_NAMESPACE === undefined) {
    problems.push(
      "SERVICEBUS_CONNECTION_STRING is not set (or set SERVICEBUS_FULLY_QUALIFIED_NAMESPACE, e.g. my-ns.servicebus.windows.net, to sign in with DefaultAzureCredential)",
    );
  }
  if (env.DATABASE_URL === undefined && settings.database === "postgres") problems.push("DATABASE_URL is not set (this consumer was generated with --db postgres)");
  if (env.DATABASE_AUTH === "entra" && env.DATABASE_URL === undefined) problems.push("DATABASE_AUTH=entra needs DATABASE_URL (the server, database and Entra user, no password)");
  if (env.DATABASE_AUTH === "entra" && env.DATABASE_URL !== undefined && /^postgres(ql)?:\/\/[^/@]*:[^/@]*@/.test(env.DATABASE_URL)) {
    problems.push("DATABASE_AUTH=entra: DATABASE_URL must not carry a password (the Entra token is the password)");
  }
  problems.push(...keyDestinationProblems(env));
  if (settings.vault === "keybrake") {
    if (env.KEYBRAKE_URL === undefined) problems.push("KEYBRAKE_URL is not set (the vault proxy, e.g. https://proxy.keybrake.com)");
    if (env.KEYBRAKE_API_KEY === undefined) problems.push("KEYBRAKE_API_KEY is not set (the Keybrake account key that creates vault keys)");
    if (env.BILLING_PERIOD_CAP_CENTS === undefined) problems.push("BILLING_PERIOD_CAP_CENTS is not set (it sizes each billing period's vault key cap)");
  } else if (env.STRIPE_API_KEY === undefined) {
    problems.push("STRIPE_API_KEY is not set (a restricted key, rk_..., allowed to write PaymentIntents)");
  }
  const calls = env.MAX_CONCURRENT_CALLS ?? 1;
  const slots = env.MAX_CONCURRENT_STRIPE_CALLS ?? calls;
  // Numbers only: a malformed value is reported above by its own name.
  if (typeof calls === "number" && typeof slots === "number" && (slots > calls || 2 * slots < calls)) {
    problems.push(`MAX_CONCURRENT_STRIPE_CALLS (${slots}) must be between half of MAX_CONCURRENT_CALLS (${calls}) and all of it`);
  }
  return problems;
}

/**
 * Where the keys would go (the runtime refuses the same at start): a live Stripe key only to Stripe itself (or an
 * origin in STRIPE_ALLOWED_ORIGINS), plain http only for test keys on loopback. A malformed origin is reported above.
 */
function keyDestinationProblems(env: ParsedVariables): string[] {
  const problems: (string | undefined)[] = [];
  if (settings.vault !== "keybrake" && env.STRIPE_API_KEY !== undefined && env.STRIPE_API_BASE !== undefined && originPattern.test(env.STRIPE_API_BASE)) {
    const allowed = { STRIPE_ALLOWED_ORIGINS: env.STRIPE_ALLOWED_ORIGINS };
    problems.push(keyDestinationProblem(env.STRIPE_API_KEY, env.STRIPE_API_BASE, { env: allowed }));
  }
  if (settings.vault === "keybrake" && env.KEYBRAKE_API_KEY !== undefined && env.KEYBRAKE_URL !== undefined) {
    problems.push(keyDestinationProblem(env.KEYBRAKE_API_KEY, originOf(env.KEYBRAKE_URL), { variable: "KEYBRAKE_URL" }));
  }
  return problems.filter((problem) => problem !== undefined);
}

/** The origin keys are sent to (the provider posts to `${origin}/vault/keys`); a non-URL as it is, to be named. */
function originOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return raw;
  }
}

/** `env`: the process's environment unless a test hands in its own. */
export function readConfig(env: Environment = processEnvironment()): Config {
  const parsed = environmentSchema.safeParse(consumerVariables(env));
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => issue.message));
  const values = parsed.data;
  const calls = values.MAX_CONCURRENT_CALLS ?? 1;
  const keybrake = settings.vault === "keybrake" && values.KEYBRAKE_URL !== undefined && values.KEYBRAKE_API_KEY !== undefined
    ? { baseUrl: values.KEYBRAKE_URL, apiKey: values.KEYBRAKE_API_KEY }
    : undefined;
  return {
    connectionString: values.SERVICEBUS_CONNECTION_STRING ?? "",
    ...(values.SERVICEBUS_CONNECTION_STRING === undefined && values.SERVICEBUS_FULLY_QUALIFIED_NAMESPACE !== undefined
      ? { fullyQualifiedNamespace: values.SERVICEBUS_FULLY_QUALIFIED_NAMESPACE }
      : {}),
    queueName: values.SERVICEBUS_QUEUE ?? settings.queue,
    ...(values.DATABASE_URL === undefined ? { dataDir: settings.dataDir } : { databaseUrl: values.DATABASE_URL }),
    ...(values.DATABASE_AUTH === "entra" ? { databaseAuth: "entra" as const } : {}),
    ...(values.STRIPE_API_KEY === undefined ? {} : { stripeApiKey: values.STRIPE_API_KEY }),
    ...(values.STRIPE_API_BASE === undefined ? {} : { stripeApiBase: values.STRIPE_API_BASE }),
    ...(keybrake === undefined ? {} : { keybrake }),
    ...(values.BILLING_PERIOD_CAP_CENTS === undefined ? {} : { periodCapCents: values.BILLING_PERIOD_CAP_CENTS }),
    maxConcurrentCalls: calls,
    maxConcurrentStripeCalls: values.MAX_CONCURRENT_STRIPE_CALLS ?? calls,
    ...(values.STRIPE_REQUESTS_PER_SECOND === undefined ? {} : { stripeRequestsPerSecond: values.STRIPE_REQUESTS_PER_SECOND }),
    ...(values.HEALTH_PORT === undefined ? {} : { healthPort: values.HEALTH_PORT }),
  };
}
