import type { Command } from "commander";
// The pure config loader, not the infra index: `sandbox` must start without loading Pulumi and the Azure SDK.
import { loadStackConfig } from "../../infra/load-stack-config.js";
import { StackConfigError } from "../../infra/stack-config.js";
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
  servicebusPort: number;
  stripePort: number;
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
    .option("--servicebus-port <port>", "AMQP port of the Service Bus emulator (0: any free port)", port, 5672)
    .option("--stripe-port <port>", "HTTP port of the Stripe emulator (0: any free port)", port, 12111)
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
  stripeCustomer?: string;
  paymentMethod: string;
  period?: string;
  amountCents: number;
  currency: string;
}

/** `chargeguard sandbox send`: one billing event to the running sandbox, with its settings from sandbox.env. */
function registerSend(sandbox: Command): void {
  sandbox
    .command("send")
    .description("send the running sandbox one billing event (creating its Stripe customer first), settings from sandbox.env in the environment")
    .option("--queue <name>", "the queue (default: env SERVICEBUS_QUEUE)")
    .option("--customer <id>", "your customer id, the event's customerId", "acme-42")
    .option("--stripe-customer <cus>", "an existing sandbox Stripe customer (default: one is created)")
    .option("--payment-method <pm>", "pm_card_visa charges; pm_card_chargeDeclined is declined", "pm_card_visa")
    .option("--period <YYYY-MM>", "the billing period (default: this month, UTC)", period)
    .option("--amount-cents <n>", "the amount in the currency's smallest unit", wholeNumber(1), 2_500)
    .option("--currency <code>", "ISO 4217 currency (lowercased for Stripe)", (value: string) => value.toLowerCase(), "usd")
    .addHelpText(
      "after",
      "\nExample (a second terminal, beside chargeguard sandbox > sandbox.env and the consumer's npm start):\n" +
        "  set -a; . ./sandbox.env; set +a; chargeguard sandbox send --amount-cents 2500\n" +
        exitCodesHelp({ 0: "sent", 1: "the sandbox could not be reached or refused the event", 2: "a setting from sandbox.env missing" }),
    )
    .action(async (options: SendOptions) => {
      const env = process.env;
      const connectionString = env.SERVICEBUS_PRODUCER_CONNECTION_STRING ?? env.SERVICEBUS_CONNECTION_STRING;
      const queue = options.queue ?? env.SERVICEBUS_QUEUE;
      const missing = [
        connectionString ? undefined : "SERVICEBUS_PRODUCER_CONNECTION_STRING",
        queue ? undefined : "SERVICEBUS_QUEUE (or --queue)",
        env.STRIPE_API_BASE ? undefined : "STRIPE_API_BASE",
        env.STRIPE_API_KEY ? undefined : "STRIPE_API_KEY",
      ].filter(Boolean);
      if (missing.length > 0) throw new UsageError(`${missing.join(", ")} not set: load the sandbox's settings first (${loadHint})`);
      const { sendSandboxEvent } = await import("../../sandbox/send-event.js");
      const sent = await sendSandboxEvent({
        connectionString: connectionString as string,
        queue: queue as string,
        stripeApiBase: env.STRIPE_API_BASE as string,
        stripeApiKey: env.STRIPE_API_KEY as string,
        customerId: options.customer,
        ...(options.stripeCustomer === undefined ? {} : { stripeCustomerId: options.stripeCustomer }),
        paymentMethodId: options.paymentMethod,
        billingPeriod: options.period ?? new Date().toISOString().slice(0, 7),
        amountCents: options.amountCents,
        currency: options.currency,
      });
      console.log(JSON.stringify(sent.event));
      const created = sent.customerCreated ? ` (Stripe customer ${sent.event.stripeCustomerId} created in the sandbox)` : "";
      console.error(`chargeguard sandbox send: sent to ${queue} as message ${sent.messageId}${created}; the consumer logs it charged`);
    });
}

function period(value: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) throw allowed("a month as YYYY-MM, e.g. 2026-10");
  return value;
}

async function runSandbox(options: SandboxOptions): Promise<void> {
  const queues = queuesFrom(options);
  const authorizationRules = Object.fromEntries(Object.entries(roleRules).map(([name, role]) => [name, { rights: [...role.rights.sasRights] }]));
  const serviceBus = await startServiceBusEmulator({ queues, port: options.servicebusPort, authorizationRules }).catch((error: unknown) => {
    throw explainListenError(error, "--servicebus-port", options.servicebusPort);
  });
  const stripe = await startStripeEmulator({ port: options.stripePort, searchLagMs: options.stripeSearchLagMs ?? 0 }).catch(async (error: unknown) => {
    await serviceBus.stop();
    throw explainListenError(error, "--stripe-port", options.stripePort);
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

function explainListenError(error: unknown, flag: string, port: number): unknown {
  if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
    return new UsageError(`127.0.0.1:${port} is already in use: pass ${flag} with another port, or 0 for any free one`);
  }
  return error;
}

