// `npm start -- --print-settings`: the settings this consumer runs with, as JSON, secrets redacted. Nothing connects,
// so CI or an operator can compare them with `chargeguard plan --stack <stack> --json` before a deployment.
import { consumerFitProblems, type QueueTuning } from "chargeguard/tuning";
import { ConfigError, type Config, readConfig } from "./config.js";
import { queueTuning, stripeCallsPerMessage } from "./consumer.js";
import queueBudget from "./queue-budget.json" with { type: "json" };
import { settings } from "./settings.js";

const redacted = "[redacted]";

/** Keeps the endpoint and the key's name; hides the key and any signature. */
function redactConnectionString(connectionString: string): string {
  return connectionString
    .split(";")
    .map((part) => (/^\s*SharedAccess(Key|Signature)\s*=/i.test(part) ? `${part.slice(0, part.indexOf("=") + 1)}${redacted}` : part))
    .join(";");
}

/** Keeps the kind of key (rk_live_, sk_test_, ...), which says where it charges; hides the rest. */
function redactStripeKey(key: string): string {
  return `${/^[a-z]{2,3}_(test|live)_/.exec(key)?.[0] ?? ""}${redacted}`;
}

/** Keeps scheme, user, host and database; hides the password and any query (it can carry keys). */
function redactDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const user = url.username === "" ? "" : `${url.username}${url.password === "" ? "" : `:${redacted}`}@`;
    return `${url.protocol}//${user}${url.host}${url.pathname}${url.search === "" ? "" : `?${redacted}`}`;
  } catch {
    return redacted;
  }
}

/**
 * What the runtime refuses to start with for these settings (the same check, tuning's consumerFitProblems): the
 * queue's lock, renewed for the tuned deadline, must cover a delivery and a wait for a Stripe slot.
 */
function startupProblems(config: Config, tuning: QueueTuning): string[] {
  const concurrency = { maxConcurrentCalls: config.maxConcurrentCalls, maxConcurrentStripeCalls: config.maxConcurrentStripeCalls, stripeCallsPerMessage };
  const lock = { lockDurationMs: tuning.lockDurationMs, maxAutoLockRenewalDurationInMs: tuning.consumer.maxAutoLockRenewalDurationInMs };
  return consumerFitProblems(tuning.budget, concurrency, lock).map((problem) => `consumer settings do not fit queue ${config.queueName}: ${problem}`);
}

/** `tuning`: this queue's (a test may pass another). */
export function effectiveSettings(env: NodeJS.ProcessEnv = process.env, tuning: QueueTuning = queueTuning) {
  let config: Config | undefined;
  let problems: string[] = [];
  try {
    config = readConfig(env);
    problems = startupProblems(config, tuning);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems = error.problems;
  }
  return {
    queue: config?.queueName ?? (env.SERVICEBUS_QUEUE?.trim() || settings.queue),
    tuning: {
      lockDurationMs: tuning.lockDurationMs,
      maxAutoLockRenewalDurationInMs: tuning.consumer.maxAutoLockRenewalDurationInMs,
      stripeTimeoutMs: tuning.consumer.stripeTimeoutMs,
      stripeMaxNetworkRetries: tuning.consumer.stripeMaxNetworkRetries,
    },
    budget: { queue: queueBudget.queue, stack: queueBudget.stack, source: queueBudget.source },
    serviceBus: config?.fullyQualifiedNamespace
      ? { fullyQualifiedNamespace: config.fullyQualifiedNamespace, credential: "DefaultAzureCredential" }
      : { connectionString: config?.connectionString ? redactConnectionString(config.connectionString) : null },
    stripe: {
      apiKey: config?.stripeApiKey === undefined ? null : redactStripeKey(config.stripeApiKey),
      apiBase: config?.stripeApiBase ?? "https://api.stripe.com",
      keybrake: config?.keybrake ? { baseUrl: config.keybrake.baseUrl, apiKey: redacted } : null,
    },
    database: config?.databaseUrl ? { url: redactDatabaseUrl(config.databaseUrl) } : { embedded: config?.dataDir ?? settings.dataDir },
    periodCapCents: config?.periodCapCents ?? null,
    maxConcurrentCalls: config?.maxConcurrentCalls ?? null,
    maxConcurrentStripeCalls: config?.maxConcurrentStripeCalls ?? null,
    stripeRequestsPerSecond: config?.stripeRequestsPerSecond ?? null,
    healthPort: config?.healthPort ?? null,
    /** What `npm start` would refuse to start with (the run contract's variables); empty when it would start. */
    problems,
  };
}
