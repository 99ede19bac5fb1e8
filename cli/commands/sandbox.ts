import type { Command } from "commander";
// The pure config loader, not the infra index: `sandbox` must start without loading Pulumi and the Azure SDK.
import { loadStackConfig, StackConfigError } from "../../infra/config/index.js";
import { queueOptionsFromTuning, startServiceBusEmulator, type EmulatedQueueOptions, resolveQueueOptions, startStripeEmulator } from "../../sandbox/index.js";
// The rights BillingQueue deploys per party, from the pure tuning room (no SDK loaded).
import { consumerQueueRights, operatorQueueRights, producerQueueRights, type QueueRights } from "../../tuning/index.js";
import { exitCodesHelp, UsageError } from "../exit-codes.js";
import { allowed, collect, wholeNumber } from "../flag-values.js";
import { checkStackFlags } from "../stack-flags.js";

const port = wholeNumber(0, 65_535);
// The emulator's own floors (sandbox/servicebus/options.ts), checked here so the refusal names the flag.
const lockDuration = wholeNumber(100);
const atLeastOne = wholeNumber(1);

interface SandboxOptions {
  /** Absent: the default port, or any free one when it is taken. */
  servicebusPort?: number;
  /** undefined: 5671, else a free port. */
  amqpsPort?: number;
  /** false with `--no-amqps`: no AMQPS listener. */
  amqps: boolean;
  stripePort?: number;
  queue?: string[];
  stack?: string;
  configFile?: string;
  lockDurationMs?: number;
  maxDeliveryCount?: number;
  defaultTtlMs?: number;
  duplicateDetectionWindowMs?: number;
  deadLetterOnExpiration?: boolean;
  stripeSearchLagMs?: number;
}

/**
 * A SAS rule per party with exactly the rights BillingQueue deploys for it (tuning/queue-rights.ts), so a local run
 * fails as the deployment would when a party needs more. Namespace scope here: one string serves every sandbox queue.
 */
const roleRules: Record<string, { variable: string; rights: QueueRights }> = {
  consumer: { variable: "SERVICEBUS_CONSUMER_CONNECTION_STRING", rights: consumerQueueRights },
  producer: { variable: "SERVICEBUS_PRODUCER_CONNECTION_STRING", rights: producerQueueRights },
  operator: { variable: "SERVICEBUS_OPERATOR_CONNECTION_STRING", rights: operatorQueueRights },
};

/** The key a sandbox consumer uses: the emulator accepts any sk_test_/rk_test_ key and never a live one. */
const sandboxApiKey = "rk_test_sandbox";

/** The ports a first run asks for: the official emulator's AMQP port, and the port stripe-mock uses. */
const defaultPorts = { servicebus: 5672, stripe: 12111 } as const;

const loadHint = "`node --env-file=sandbox.env ...` or `set -a; . ./sandbox.env; set +a`";

/**
 * KEY='value': single quotes make the file sourceable by a shell (the connection string holds `;`) and are read the
 * same by `node --env-file` and dotenv. No value here holds a single quote; refuse one rather than print a broken file.
 */
export function envLine(name: string, value: string): string {
  if (value.includes("'") || value.includes("\n")) throw new Error(`${name} cannot be written as an env file line: ${JSON.stringify(value)}`);
  return `${name}='${value}'`;
}

export function register(program: Command): void {
  const sandbox = program.command("sandbox");
  sandbox
    .description("run the Service Bus and Stripe emulators on 127.0.0.1 until Ctrl-C, and print the settings a consumer needs")
    .option("--servicebus-port <port>", `AMQP port of the Service Bus emulator (0: any free port; default ${defaultPorts.servicebus}, or any free port when that is taken, said on stderr)`, port)
    .option("--amqps-port <port>", "AMQPS (TLS) port for clients that insist on TLS, e.g. Python's azure-servicebus (default 5671, a free one when taken)", port)
    .option("--no-amqps", "no AMQPS listener (and no certificate authority made)")
    .option("--stripe-port <port>", `HTTP port of the Stripe emulator (0: any free port; default ${defaultPorts.stripe}, or any free port when that is taken)`, port)
    .option("--queue <name>", "a queue to create (repeatable; default usage-billing)", collect)
    .option("--lock-duration-ms <ms>", "LockDuration of the --queue queues (default 60000)", lockDuration)
    .option("--max-delivery-count <n>", "MaxDeliveryCount of the --queue queues (default 10)", atLeastOne)
    .option("--default-ttl-ms <ms>", "DefaultMessageTimeToLive of the --queue queues (default: none)", atLeastOne)
    .option("--duplicate-detection-window-ms <ms>", "turn on duplicate detection by messageId with this window", atLeastOne)
    .option("--dead-letter-on-expiration", "dead-letter expired messages instead of dropping them")
    .option("--stack <name>", "take the queues and their tuning from Pulumi.<name>.yaml in the current directory")
    .option("--config-file <path>", "take the queues and their tuning from this stack config file")
    .option("--stripe-search-lag-ms <ms>", "hide PaymentIntents from Stripe search for this long, as Stripe's search lags", wholeNumber(0), 0)
    .addHelpText(
      "after",
      "\nExamples:\n  chargeguard sandbox\n  chargeguard sandbox --queue usage-billing --lock-duration-ms 30000 --max-delivery-count 5\n  chargeguard sandbox --stack dev --stripe-port 0\n" +
        exitCodesHelp({ 0: "stopped with Ctrl-C or SIGTERM (its normal end)", 1: "the emulators failed, or did not stop within 10 s" }, { interrupt: false }),
    )
    .action(async (options: SandboxOptions) => {
      await runSandbox(options);
    });
  registerSend(sandbox);
}

interface SendOptions {
  queue?: string;
  customer: string;
  usageId?: string;
  stripeCustomer?: string;
  paymentMethod: string;
  period?: string;
  amountCents: number;
  currency: string;
  waitMs: number;
}

/** `chargeguard sandbox send`: one billing event to the running sandbox, with its settings from sandbox.env. */
function registerSend(sandbox: Command): void {
  sandbox
    .command("send")
    .description("send the running sandbox one billing event (creating its Stripe customer first), settings from sandbox.env in the environment")
    .option("--queue <name>", "the queue (default: env SERVICEBUS_QUEUE)")
    .option("--customer <id>", "your customer id, the event's customerId", "acme-42")
    .option("--usage-id <id>", "the event's usageId, for a consumer generated with --billing-identity usage-event (default: none)")
    .option("--stripe-customer <cus>", "an existing sandbox Stripe customer (default: one is created)")
    .option("--payment-method <pm>", "pm_card_visa charges; pm_card_chargeDeclined is declined", "pm_card_visa")
    .option("--period <YYYY-MM>", "the billing period (default: this month, UTC)", period)
    .option("--amount-cents <n>", "the amount in the currency's smallest unit", wholeNumber(1), 2_500)
    .option("--currency <code>", "ISO 4217 currency (lowercased for Stripe)", (value: string) => value.toLowerCase(), "usd")
    .option("--wait-ms <ms>", "wait this long for the consumer's outcome of the message (0: do not wait)", wholeNumber(0), 30_000)
    .addHelpText(
      "after",
      "\nExample (a second terminal, beside chargeguard sandbox > sandbox.env and the consumer's npm start):\n" +
        "  set -a; . ./sandbox.env; set +a; chargeguard sandbox send --amount-cents 2500\n" +
        exitCodesHelp({
          0: "sent, and the consumer charged it, recorded its decline or found it already billed (or --wait-ms 0)",
          1: "the sandbox could not be reached or refused the event; the consumer dead-lettered it; no consumer picked it up within --wait-ms",
          2: "a setting from sandbox.env missing, a queue the sandbox does not have",
        }),
    )
    .action(async (options: SendOptions, command: Command) => {
      const env = process.env;
      const connectionString = env.SERVICEBUS_PRODUCER_CONNECTION_STRING ?? env.SERVICEBUS_CONNECTION_STRING;
      // `sandbox` has a --queue of its own, which commander gives the parent when it follows `send`: read it there.
      const queue = options.queue ?? (command.parent?.opts() as { queue?: string[] } | undefined)?.queue?.at(-1) ?? env.SERVICEBUS_QUEUE;
      const missing = [
        connectionString ? undefined : "SERVICEBUS_PRODUCER_CONNECTION_STRING",
        queue ? undefined : "SERVICEBUS_QUEUE (or --queue)",
        env.STRIPE_API_BASE ? undefined : "STRIPE_API_BASE",
        env.STRIPE_API_KEY ? undefined : "STRIPE_API_KEY",
      ].filter(Boolean);
      if (missing.length > 0) throw new UsageError(`${missing.join(", ")} not set: load the sandbox's settings first (${loadHint})`);
      const { sendSandboxEvent, SandboxQueueMissingError } = await import("../../sandbox/send-event.js");
      const sent = await sendSandboxEvent({
        connectionString: connectionString as string,
        queue: queue as string,
        stripeApiBase: env.STRIPE_API_BASE as string,
        stripeApiKey: env.STRIPE_API_KEY as string,
        customerId: options.customer,
        ...(options.usageId === undefined ? {} : { usageId: options.usageId }),
        ...(options.stripeCustomer === undefined ? {} : { stripeCustomerId: options.stripeCustomer }),
        paymentMethodId: options.paymentMethod,
        billingPeriod: options.period ?? new Date().toISOString().slice(0, 7),
        amountCents: options.amountCents,
        currency: options.currency,
      }).catch((error: unknown) => {
        throw error instanceof SandboxQueueMissingError ? new UsageError(error.message) : error;
      });
      console.log(JSON.stringify(sent.event));
      const created = sent.customerCreated ? ` (Stripe customer ${sent.event.stripeCustomerId} created in the sandbox)` : "";
      console.error(`chargeguard sandbox send: sent to ${queue} as message ${sent.messageId}${created}`);
      if (options.waitMs > 0) await reportOutcome(sent, queue as string, options.waitMs);
    });
}

/** Waits (bounded) for what the consumer did with the message, and says it in one line; exit 1 when it did not bill. */
async function reportOutcome(sent: { messageId: string; event: { stripeCustomerId: string }; before: ReadonlySet<string> }, queue: string, waitMs: number): Promise<void> {
  const env = process.env;
  const listen = env.SERVICEBUS_OPERATOR_CONNECTION_STRING ?? env.SERVICEBUS_CONNECTION_STRING;
  if (listen === undefined) return;
  const { waitForOutcome } = await import("../../sandbox/send-outcome.js");
  const outcome = await waitForOutcome({
    listenConnectionString: listen,
    queue,
    messageId: sent.messageId,
    stripeApiBase: env.STRIPE_API_BASE as string,
    stripeApiKey: env.STRIPE_API_KEY as string,
    stripeCustomerId: sent.event.stripeCustomerId,
    before: sent.before,
    timeoutMs: waitMs,
  });
  const say = (line: string) => console.error(`chargeguard sandbox send: ${line}`);
  switch (outcome.kind) {
    case "charged":
    case "declined":
      return say(`the consumer ${outcome.kind === "charged" ? "charged it" : "recorded a decline"}: ${outcome.object} (${outcome.status}, ${outcome.amount} ${outcome.currency})`);
    case "already-billed":
      return say("the consumer found it already billed: no new Stripe object (the same identity was billed before)");
    case "dead-lettered":
      process.exitCode = 1;
      return say(`the consumer dead-lettered it: ${outcome.reason}: ${outcome.description} (chargeguard dlq peek lists it)`);
    case "not-picked-up":
      process.exitCode = 1;
      return say(`not picked up within ${Math.round(outcome.waitedMs / 1000)} s: it is still on ${queue}; is the consumer running (npm start) on this queue?`);
  }
}

function period(value: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) throw allowed("a month as YYYY-MM, e.g. 2026-10");
  return value;
}

async function runSandbox(options: SandboxOptions): Promise<void> {
  const queues = queuesFrom(options);
  const authorizationRules = Object.fromEntries(Object.entries(roleRules).map(([name, role]) => [name, { rights: [...role.rights.sasRights] }]));
  const tls = options.amqps && { ...(options.amqpsPort === undefined ? {} : { port: options.amqpsPort }) };
  const serviceBus = await onFreePort("--servicebus-port", options.servicebusPort, defaultPorts.servicebus, (port) =>
    startServiceBusEmulator({ queues, port, authorizationRules, tls }).catch((error: unknown) => {
      // A taken AMQPS port named by flag is that flag's mistake, not the AMQP port's (an unnamed 5671 gives way by itself).
      const amqpsPort = options.amqpsPort;
      const amqpsTaken = amqpsPort !== undefined && (error as { port?: number }).port === amqpsPort && (error as NodeJS.ErrnoException).code === "EADDRINUSE";
      throw amqpsTaken ? new UsageError(`127.0.0.1:${amqpsPort} is already in use: pass --amqps-port with another port, or 0 for any free one`) : error;
    }),
  ).catch(settingsNotWritten);
  const stripe = await onFreePort("--stripe-port", options.stripePort, defaultPorts.stripe, (port) =>
    startStripeEmulator({ port, searchLagMs: options.stripeSearchLagMs ?? 0 }),
  ).catch(async (error: unknown) => {
    await serviceBus.stop();
    return settingsNotWritten(error);
  });

  // Listen before printing: whoever reads the settings may signal at once.
  const stopRequested = new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      console.error(`chargeguard sandbox: ${signal}, stopping`);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  const names = Object.keys(queues);
  console.error(`chargeguard sandbox: running on 127.0.0.1, Ctrl-C stops it`);
  console.error(`  Service Bus  amqp://127.0.0.1:${serviceBus.port}`);
  if (serviceBus.tls) {
    console.error(`               amqps://127.0.0.1:${serviceBus.tls.port}, certificate authority ${serviceBus.tls.caFile}`);
    if (options.amqpsPort === undefined && serviceBus.tls.port !== 5671) {
      console.error("               (5671 is taken: Python's azure-servicebus 7.8 dials 5671 only; Proton and Java take the port given)");
    }
  }
  for (const name of names) console.error(`    queue ${name}: ${describeQueue(name, queues[name])}`);
  console.error(`  Stripe       ${stripe.apiBase} (test keys only: sk_test_... or rk_test_...)`);
  console.error(`Settings for a consumer on stdout, an env file: \`chargeguard sandbox > sandbox.env\`, then ${loadHint}`);
  console.log(`# chargeguard sandbox settings: load with ${loadHint}`);
  console.log("# every right (the emulator's root rule):");
  console.log(envLine("SERVICEBUS_CONNECTION_STRING", serviceBus.connectionString));
  for (const [name, role] of Object.entries(roleRules)) {
    console.log(`# the ${name}'s rights as deployed (${role.rights.sasRights.join(" + ")}): ${role.rights.because}`);
    console.log(envLine(role.variable, serviceBus.connectionStringFor(name)));
  }
  if (serviceBus.tls) {
    console.log("# clients that insist on TLS (Python's azure-servicebus: connection_verify=$SERVICEBUS_CA_FILE), every right:");
    console.log(envLine("SERVICEBUS_AMQPS_CONNECTION_STRING", serviceBus.tls.connectionString));
    console.log(envLine("SERVICEBUS_CA_FILE", serviceBus.tls.caFile));
  }
  console.log(envLine("SERVICEBUS_QUEUE", names[0] ?? ""));
  console.log(envLine("STRIPE_API_BASE", stripe.apiBase));
  console.log(envLine("STRIPE_API_KEY", sandboxApiKey));

  await stopRequested;
  // A stop that hangs must not hold the terminal: give it 10 s.
  const deadline = setTimeout(() => {
    console.error("chargeguard sandbox: emulators did not stop within 10 s, exiting");
    process.exit(1);
  }, 10_000).unref();
  await Promise.all([serviceBus.stop(), stripe.stop()]);
  clearTimeout(deadline);
  console.error("chargeguard sandbox: stopped");
}

function queuesFrom(options: SandboxOptions): Record<string, EmulatedQueueOptions> {
  const fromStack = options.stack !== undefined || options.configFile !== undefined;
  const queueFlags = (["lockDurationMs", "maxDeliveryCount", "defaultTtlMs", "duplicateDetectionWindowMs", "deadLetterOnExpiration"] as const).filter(
    (flag) => options[flag] !== undefined,
  );
  if (fromStack) {
    if (options.queue !== undefined || queueFlags.length > 0) {
      throw new UsageError("use either --stack/--config-file (queues and tuning from the stack) or --queue and its flags, not both");
    }
    checkStackFlags(options.stack, options.configFile);
    let config: ReturnType<typeof loadStackConfig>;
    try {
      config = loadStackConfig({
        ...(options.stack !== undefined ? { stack: options.stack } : {}),
        ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
      });
    } catch (error) {
      throw error instanceof StackConfigError ? new UsageError(error.message) : error;
    }
    return Object.fromEntries(config.queues.map((queue) => [queue.name, queueOptionsFromTuning(queue.tuning)]));
  }
  const shared: EmulatedQueueOptions = {
    ...(options.lockDurationMs !== undefined ? { lockDurationMs: options.lockDurationMs } : {}),
    ...(options.maxDeliveryCount !== undefined ? { maxDeliveryCount: options.maxDeliveryCount } : {}),
    ...(options.defaultTtlMs !== undefined ? { defaultTtlMs: options.defaultTtlMs } : {}),
    ...(options.duplicateDetectionWindowMs !== undefined ? { duplicateDetectionWindowMs: options.duplicateDetectionWindowMs } : {}),
    ...(options.deadLetterOnExpiration ? { deadLetteringOnMessageExpiration: true } : {}),
  };
  const names = options.queue ?? ["usage-billing"];
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw new UsageError(`--queue ${duplicate} is given twice`);
  return Object.fromEntries(names.map((name) => [name, shared]));
}

function describeQueue(name: string, options: EmulatedQueueOptions | undefined): string {
  const resolved = resolveQueueOptions(name, options);
  const parts = [
    `lock ${resolved.lockDurationMs} ms`,
    `max deliveries ${resolved.maxDeliveryCount}`,
    resolved.defaultTtlMs !== undefined ? `ttl ${resolved.defaultTtlMs} ms` : "no ttl",
    resolved.duplicateDetectionWindowMs !== undefined ? `duplicate detection ${resolved.duplicateDetectionWindowMs} ms` : "no duplicate detection",
  ];
  if (resolved.deadLetteringOnMessageExpiration) parts.push("expired messages dead-lettered");
  return parts.join(", ");
}

/**
 * Starts an emulator on the port asked for; with none asked for, on the default port, or on any free port when the
 * default is taken (the official Service Bus emulator and RabbitMQ hold 5672), said on stderr: the settings printed
 * carry the port taken, so `chargeguard sandbox > sandbox.env` works either way. A port asked for by name and taken
 * is a usage error naming the flag.
 */
async function onFreePort<T>(flag: string, asked: number | undefined, fallback: number, start: (port: number) => Promise<T>): Promise<T> {
  try {
    return await start(asked ?? fallback);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    if (asked !== undefined) throw new UsageError(`127.0.0.1:${asked} is already in use: pass ${flag} with another port, or 0 for any free one`);
    console.error(`chargeguard sandbox: 127.0.0.1:${fallback} is taken (${flag}'s default), so any free port instead; the settings printed carry it`);
    return start(0);
  }
}

/**
 * No settings were printed. When stdout is a file (`chargeguard sandbox > sandbox.env`), the shell has made it
 * already: a comment saying why keeps it from being an empty file that fails later, far from the cause.
 */
function settingsNotWritten(error: unknown): never {
  if (!process.stdout.isTTY) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stdout.write(`# chargeguard sandbox did not start, no settings here: ${reason.split("\n")[0]}\n`);
  }
  throw error;
}

