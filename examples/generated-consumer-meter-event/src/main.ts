// `npm start`: reads the run contract from the environment, starts telemetry when configured (telemetry.ts), runs the
// consumer, and stops cleanly on SIGTERM (in-flight messages finish or are left to lapse; the guard makes whatever a
// crash left behind safe to redo), flushing the last metrics and spans before it exits; also while it still waits at
// start for a database that does not answer (exit 0, 130 after Ctrl-C).
// `npm start -- --print-settings` prints the effective settings as JSON (secrets redacted) and exits 0, connecting nothing.
import { mkdirSync } from "node:fs";
import { ConfigurationError, entraPassword, KeybrakeKeyProvider, processEnvironment, redactSecrets, StartStoppedSignal, terminalSafe } from "chargeguard/runtime";
import { ConfigError, readConfig } from "./config.js";
import { type ConsumerOptions, startUsageBillingConsumer } from "./consumer.js";
import { type HealthServer, type HealthState, startHealthServer } from "./health.js";
import { effectiveSettings } from "./print-settings.js";
import { settings } from "./settings.js";
import { startTelemetry, type TelemetryExport } from "./telemetry.js";

// Every line an operator reads: secrets redacted, control characters escaped (a queue message's bytes can reach it).
const log = (line: string) => console.log(`${new Date().toISOString()} ${terminalSafe(redactSecrets(line))}`);
const logError = (text: string) => console.error(terminalSafe(redactSecrets(text), { multiline: true }));

function optionsFrom(config: ReturnType<typeof readConfig>): ConsumerOptions {
  if (config.dataDir !== undefined) mkdirSync(config.dataDir, { recursive: true });
  return {
    serviceBus: { connectionString: config.connectionString, queueName: config.queueName },
    stripe: {
      apiKey: config.stripeApiKey ?? "",
      ...(config.stripeApiBase === undefined ? {} : { apiBase: config.stripeApiBase }),
    },
    ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
    // Entra: the app identity's token (AZURE_CLIENT_ID), refreshed before it expires, is the database password.
    ...(config.databaseAuth === "entra" ? { databasePassword: entraPassword() } : {}),
    ...(config.dataDir === undefined ? {} : { dataDir: config.dataDir }),
    ...(config.periodCapCents === undefined ? {} : { periodCapCents: config.periodCapCents }),
    ...(config.keybrake === undefined ? {} : { keyProvider: new KeybrakeKeyProvider(config.keybrake) }),
    maxConcurrentCalls: config.maxConcurrentCalls,
    maxConcurrentStripeCalls: config.maxConcurrentStripeCalls,
    log,
  };
}

/** Ctrl-C is an interrupted command: 130, as shells and npm report it; SIGTERM is the platform's normal stop: 0. */
const stopExitCode = (signal: NodeJS.Signals) => (signal === "SIGINT" ? 130 : 0);

/** How the process stops: the first SIGTERM or SIGINT, at start or while consuming. */
interface Stop {
  /** The first stop signal received, if any. */
  signal?: NodeJS.Signals;
  /** Aborted by that signal: ends a start still waiting for the database. */
  starting: AbortSignal;
  /** Stops the running consumer, once it runs. */
  running?: (signal: NodeJS.Signals) => void;
}

/**
 * SIGTERM and SIGINT from the first moment, not only once consuming: a replica waiting at start for a database that
 * does not answer must stop when the platform stops it (exit 0), not die by the signal.
 */
function stopOnSignal(healthState: HealthState): Stop {
  const starting = new AbortController();
  const stop: Stop = { starting: starting.signal };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal !== undefined) return;
    stop.signal = signal;
    healthState.stopping = true;
    log(`${signal}: stopping`);
    starting.abort();
    stop.running?.(signal);
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  return stop;
}

async function main(): Promise<void> {
  if (process.argv.slice(2).includes("--print-settings")) {
    console.log(JSON.stringify(effectiveSettings(), null, 2));
    return;
  }
  let config: ReturnType<typeof readConfig>;
  let consumer: Awaited<ReturnType<typeof startUsageBillingConsumer>>;
  let telemetry: TelemetryExport | undefined;
  let health: HealthServer | undefined;
  const healthState: HealthState = { started: false, stopping: false };
  const stop = stopOnSignal(healthState);
  try {
    config = readConfig();
    // Up first, answering 503 until the consumer has started: the startup probe waits, the platform sees a process.
    if (config.healthPort !== undefined) health = await startHealthServer(config.healthPort, healthState);
    // Before the consumer, so the runtime's instruments are created in the SDK.
    telemetry = await startTelemetry(processEnvironment(), settings.serviceName);
    if (telemetry) log(`telemetry: exporting to ${telemetry.destination}`);
    consumer = await startUsageBillingConsumer({
      ...optionsFrom(config),
      // A database that does not answer at start: live and not ready while the consumer waits for it.
      onDatabaseWait: (waiting) => (healthState.waitingForDatabase = waiting),
      signal: stop.starting,
    });
  } catch (error) {
    await telemetry?.shutdown();
    await health?.close();
    // Stopped while waiting for the database: the platform's stop, as when consuming.
    if (error instanceof StartStoppedSignal && stop.signal !== undefined) {
      process.exit(stopExitCode(stop.signal));
    }
    // Wrong settings stop the consumer at start, named, with exit code 2; anything else is a crash (exit 1).
    if (!(error instanceof ConfigError || error instanceof ConfigurationError)) throw error;
    logError(error instanceof ConfigError ? error.message : `configuration: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  healthState.started = true;
  // /live asks the runtime whether the receive loop turns (not merely whether this event loop answers).
  const running = consumer;
  if (running.liveness) healthState.liveness = () => running.liveness?.() ?? { live: true };
  const where = config.fullyQualifiedNamespace ?? "the connection string's namespace";
  log(`consuming ${config.queueName} on ${where} (database: ${config.databaseUrl === undefined ? config.dataDir : "DATABASE_URL"})`);

  stop.running = (signal: NodeJS.Signals) => {
    consumer
      .close()
      .then(() => telemetry?.shutdown())
      .then((unsent) => {
        for (const problem of unsent ?? []) logError(`telemetry not flushed: ${problem}`);
        return health?.close();
      })
      .then(
        () => process.exit(stopExitCode(signal)),
        (error: unknown) => {
          logError(`stop failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
  };
  // A signal that came while the start finished its last steps: stop now.
  if (stop.signal !== undefined) stop.running(stop.signal);
}

main().catch((error: unknown) => {
  logError(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
