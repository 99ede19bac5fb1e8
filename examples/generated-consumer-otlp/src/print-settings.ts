// `npm start -- --print-settings`: the settings this consumer runs with, as JSON, secrets redacted (the runtime's one
// redactSecrets: URL user info, SharedAccessKey= and other secret-named values, Stripe keys). Nothing connects,
// so CI or an operator can compare them with `chargeguard plan --stack <stack> --json` before a deployment.
import { consumerVariables, processEnvironment, redactSecrets, type Environment } from "chargeguard/runtime";
import { consumerFitProblems, type QueueTuning } from "chargeguard/tuning";
import { ConfigError, type Config, readConfig } from "./config.js";
import { queueTuning, stripeCallsPerMessage } from "./consumer.js";
import queueBudget from "./queue-budget.json" with { type: "json" };
import { settings } from "./settings.js";

const redacted = "[redacted]";

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
export function effectiveSettings(env: Environment = processEnvironment(), tuning: QueueTuning = queueTuning) {
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
    queue: redactSecrets(config?.queueName ?? consumerVariables(env).SERVICEBUS_QUEUE ?? settings.queue),
    tuning: {
      lockDurationMs: tuning.lockDurationMs,
      maxAutoLockRenewalDurationInMs: tuning.consumer.maxAutoLockRenewalDurationInMs,
      stripeTimeoutMs: tuning.consumer.stripeTimeoutMs,
      stripeMaxNetworkRetries: tuning.consumer.stripeMaxNetworkRetries,
    },
    budget: { queue: queueBudget.queue, stack: queueBudget.stack, source: queueBudget.source },
    serviceBus: config?.fullyQualifiedNamespace
      ? { fullyQualifiedNamespace: config.fullyQualifiedNamespace, credential: "DefaultAzureCredential" }
      : { connectionString: config?.connectionString ? redactSecrets(config.connectionString) : null },
    stripe: {
      apiKey: config?.stripeApiKey === undefined ? null : redactSecrets(config.stripeApiKey),
      apiBase: redactSecrets(config?.stripeApiBase ?? "https://api.stripe.com"),
      keybrake: config?.keybrake ? { baseUrl: redactSecrets(config.keybrake.baseUrl), apiKey: redacted } : null,
    },
    database: config?.databaseUrl ? { url: redactSecrets(config.databaseUrl) } : { embedded: config?.dataDir ?? settings.dataDir },
    periodCapCents: config?.periodCapCents ?? null,
    maxConcurrentCalls: config?.maxConcurrentCalls ?? null,
    maxConcurrentStripeCalls: config?.maxConcurrentStripeCalls ?? null,
    stripeRequestsPerSecond: config?.stripeRequestsPerSecond ?? null,
    healthPort: config?.healthPort ?? null,
    /** What `npm start` would refuse to start with (the run contract's variables); empty when it would start. */
    problems: problems.map(redactSecrets),
  };
}
