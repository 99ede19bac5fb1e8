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
