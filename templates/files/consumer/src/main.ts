// `npm start`: reads the run contract from the environment, starts telemetry when configured (telemetry.ts), runs the
// consumer, and stops cleanly on SIGTERM (in-flight messages finish or are left to lapse; the guard makes whatever a
// crash left behind safe to redo), flushing the last metrics and spans before it exits.
// `npm start -- --print-settings` prints the effective settings as JSON (secrets redacted) and exits 0, connecting nothing.
import { mkdirSync } from "node:fs";
import { ConfigurationError, entraPassword, KeybrakeKeyProvider, processEnvironment, redactSecrets, terminalSafe } from "chargeguard/runtime";
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
  try {
    config = readConfig();
    // Up first, answering 503 until the consumer has started: the startup probe waits, the platform sees a process.
    if (config.healthPort !== undefined) health = await startHealthServer(config.healthPort, healthState);
    // Before the consumer, so the runtime's instruments are created in the SDK.
    telemetry = await startTelemetry(processEnvironment(), settings.serviceName);
    if (telemetry) log(`telemetry: exporting to ${telemetry.destination}`);
    consumer = await startUsageBillingConsumer(optionsFrom(config));
  } catch (error) {
    await telemetry?.shutdown();
    await health?.close();
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

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    healthState.stopping = true;
    log(`${signal}: stopping`);
    consumer
      .close()
      .then(() => telemetry?.shutdown())
      .then((unsent) => {
        for (const problem of unsent ?? []) logError(`telemetry not flushed: ${problem}`);
        return health?.close();
      })
      .then(
        // Ctrl-C is an interrupted command: 130, as shells and npm report it; SIGTERM is the platform's normal stop.
        () => process.exit(signal === "SIGINT" ? 130 : 0),
        (error: unknown) => {
          logError(`stop failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  logError(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
