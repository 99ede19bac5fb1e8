// The runtime's one reader of the environment: every variable it honours, documented here (graphile-worker's
// `@defaultValue process.env.X`) and parsed once. Everything else takes these values, or an `env` a test hands in,
// and never reads process.env itself (eslint.config.js, "chargeguard/one-environment-reader").

/** Variables by name, as process.env holds them (a test hands in its own). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The process's environment: the one place the runtime reads it. */
export function processEnvironment(): Environment {
  return process.env;
}

/** What the runtime reads from the environment, each value as its variable says it (options given in code win). */
export interface RuntimeEnvironment {
  /**
   * The fleet's Stripe budget in requests per second (the infra derives it from the Stripe budget); undefined when
   * unset or empty, NaN when not a number (the consumer's settings refuse it, naming the variable).
   * @defaultValue process.env.STRIPE_REQUESTS_PER_SECOND
   */
  stripeRequestsPerSecond: number | undefined;
  /**
   * The Service Bus namespace reached with DefaultAzureCredential when no connection string is given.
   * @defaultValue process.env.SERVICEBUS_FULLY_QUALIFIED_NAMESPACE
   */
  serviceBusNamespace: string | undefined;
  /**
   * Whether the consumer checks at start that Stripe's origin answers: `off` skips it.
   * @defaultValue process.env.STRIPE_START_CHECK
   */
  stripeStartCheck: boolean;
  /**
   * Further https origins a live key may go to, comma-separated (key-destination.ts checks each entry).
   * @defaultValue process.env.STRIPE_ALLOWED_ORIGINS
   */
  stripeAllowedOrigins: string;
  /**
   * The restricted Stripe key of the environment's key provider.
   * @defaultValue process.env.STRIPE_API_KEY
   */
  stripeApiKey: string | undefined;
}

/** Reads the variables the runtime honours from `env` (default: the process's). */
export function runtimeEnvironment(env: Environment = processEnvironment()): RuntimeEnvironment {
  const perSecond = env["STRIPE_REQUESTS_PER_SECOND"]?.trim();
  const namespace = env["SERVICEBUS_FULLY_QUALIFIED_NAMESPACE"];
  return {
    stripeRequestsPerSecond: perSecond === undefined || perSecond === "" ? undefined : Number(perSecond),
    serviceBusNamespace: namespace === undefined || namespace === "" ? undefined : namespace,
    stripeStartCheck: env["STRIPE_START_CHECK"]?.trim().toLowerCase() !== "off",
    stripeAllowedOrigins: env["STRIPE_ALLOWED_ORIGINS"]?.trim() ?? "",
    stripeApiKey: env["STRIPE_API_KEY"],
  };
}

/**
 * The variables a consumer is run with: what the generated consumer's config.ts validates (each problem naming its
 * variable) and what the CLI's operator commands read to reach Service Bus, the database and Stripe as the consumer
 * does. Values as set, trimmed; an empty one counts as unset.
 */
export interface ConsumerVariables {
  /** The queue's namespace by connection string; or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE with DefaultAzureCredential. */
  SERVICEBUS_CONNECTION_STRING?: string;
  /** The namespace's host name (my-ns.servicebus.windows.net), reached with DefaultAzureCredential. */
  SERVICEBUS_FULLY_QUALIFIED_NAMESPACE?: string;
  /** The queue; default: the one the consumer was generated for. */
  SERVICEBUS_QUEUE?: string;
  /** The guard's PostgreSQL (postgres:// or postgresql://); absent: the embedded database. */
  DATABASE_URL?: string;
  /** `entra`: sign in to PostgreSQL with the app identity's Entra token; `password` (the default): the URL carries it. */
  DATABASE_AUTH?: string;
  /** The restricted Stripe key (rk_...), when no vault hands out keys. */
  STRIPE_API_KEY?: string;
  /** Stripe's origin, e.g. http://127.0.0.1:12111 for the sandbox; default: https://api.stripe.com. */
  STRIPE_API_BASE?: string;
  /** Further https origins a live key may go to, comma-separated. */
  STRIPE_ALLOWED_ORIGINS?: string;
  /** The vault proxy that creates each period's capped key. */
  KEYBRAKE_URL?: string;
  /** The vault account's key. */
  KEYBRAKE_API_KEY?: string;
  /** A billing period's spend cap in minor units; it sizes each period's vault key. */
  BILLING_PERIOD_CAP_CENTS?: string;
  /** Messages in flight. */
  MAX_CONCURRENT_CALLS?: string;
  /** Stripe calls at a time among them. */
  MAX_CONCURRENT_STRIPE_CALLS?: string;
  /** Where the container's probes are answered; absent: no probe server. */
  HEALTH_PORT?: string;
  /** The fleet's Stripe budget in requests per second (runtimeEnvironment reads it for the runtime). */
  STRIPE_REQUESTS_PER_SECOND?: string;
}

/** Every consumer variable by name (the compiler keeps this list and the interface alike). */
const consumerVariableNames = Object.keys({
  SERVICEBUS_CONNECTION_STRING: true,
  SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: true,
  SERVICEBUS_QUEUE: true,
  DATABASE_URL: true,
  DATABASE_AUTH: true,
  STRIPE_API_KEY: true,
  STRIPE_API_BASE: true,
  STRIPE_ALLOWED_ORIGINS: true,
  KEYBRAKE_URL: true,
  KEYBRAKE_API_KEY: true,
  BILLING_PERIOD_CAP_CENTS: true,
  MAX_CONCURRENT_CALLS: true,
  MAX_CONCURRENT_STRIPE_CALLS: true,
  HEALTH_PORT: true,
  STRIPE_REQUESTS_PER_SECOND: true,
} satisfies Record<keyof ConsumerVariables, true>) as (keyof ConsumerVariables)[];

/**
 * Reads the consumer's variables from `env` (default: the process's), each trimmed, an empty one left out.
 * @defaultValue process.env
 */
export function consumerVariables(env: Environment = processEnvironment()): ConsumerVariables {
  const values: ConsumerVariables = {};
  for (const name of consumerVariableNames) {
    const raw = env[name]?.trim();
    if (raw !== undefined && raw !== "") values[name] = raw;
  }
  return values;
}
