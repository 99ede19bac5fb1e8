// `chargeguard new consumer <dir>`: scaffolds a billing consumer project (templates room). Asks in a terminal when
// no option is given; otherwise takes the flags, with defaults for what is missing.
import path from "node:path";
import { type Command, Option } from "commander";
// The stack loader without Pulumi (as `chargeguard sandbox` reads stacks): the code `chargeguard plan` validates with.
import { loadStackConfig, StackConfigError } from "../../infra/config/index.js";
import { CliError, exitCodes, exitCodesHelp } from "../exit-codes.js";
import {
  billingIdentityChoices,
  type BillingIdentityChoice,
  billingIdentityHelp,
  databaseChoices,
  dependencySource,
  flowChoices,
  type FlowChoice,
  promptScaffoldOptions,
  PromptInterrupted,
  queueBudgetPath,
  regenerateCommand,
  runningChargeguard,
  ScaffoldError,
  type ScaffoldOptions,
  type StackQueueBudget,
  scaffoldConsumer,
  telemetryChoices,
  vaultChoices,
} from "../../templates/index.js";

interface NewConsumerFlags {
  name?: string;
  queue?: string;
  currency?: string;
  db?: ScaffoldOptions["database"];
  vault?: ScaffoldOptions["vault"];
  flow?: string;
  telemetry?: ScaffoldOptions["telemetry"];
  billingIdentity?: string;
  link?: string;
  stack?: string;
  configFile?: string;
  /** `--vendor [checkout]`: the path, or true without one; `--no-vendor`: false. */
  vendor?: string | boolean;
}

/** The queue's budget from the stack config, read by the same loader `chargeguard plan` uses. */
function stackBudget(queue: string, stack: string | undefined, configFile: string | undefined): StackQueueBudget {
  const loaded = loadStackConfig({ ...(stack ? { stack } : {}), ...(configFile ? { configFile } : {}) });
  const found = loaded.queues.find((q) => q.name === queue) ?? loaded.queues.find((q) => q.name.toLowerCase() === queue.toLowerCase());
  if (!found) {
    throw new StackConfigError(loaded.file, [
      `no queue "${queue}" in stack ${loaded.stack} (its queues: ${loaded.queues.map((q) => q.name).join(", ")}): give one of them with --queue`,
    ]);
  }
  return { stack: loaded.stack, configFile: loaded.file, budget: found.budget, flow: found.flow ?? "payment-intent" };
}

export function register(program: Command): void {
  const command = program.command("new").description("create a new project from a chargeguard template");
  command
    .command("consumer")
    .description("a Service Bus -> Stripe billing consumer: guard, stable key, settlement policy, tests, CI, Dockerfile")
    .argument("<dir>", "the new project's directory (created; must be empty)")
    .option("--name <name>", "npm package name (default: the directory's name)")
    .option("--queue <queue>", "Service Bus queue to consume", "usage-billing")
    .option("--currency <code>", "ISO 4217 currency (USD or usd: lowercased for Stripe)", "usd")
    .addOption(new Option("--db <kind>", "database: embedded PGlite by default, or PostgreSQL only").choices(databaseChoices))
    .addOption(new Option("--vault <kind>", "Stripe key: STRIPE_API_KEY, or Keybrake vault keys").choices(vaultChoices))
    // Checked by the scaffolder with the other options, so an unknown flow is reported by name with exit 2.
    .option("--flow <flow>", `the Stripe billing flow: ${flowChoices.join(" | ")} (default: the stack's queues[].flow with --stack, else payment-intent)`)
    .addOption(new Option("--telemetry <kind>", "where telemetry goes: Azure Monitor (default), OTLP (OTEL_EXPORTER_OTLP_*) or none; only that exporter is installed").choices(telemetryChoices))
    // Checked by the scaffolder too: a choice the flow does not offer is reported by name with exit 2.
    .option(
      "--billing-identity <identity>",
      `what identifies one billing: ${billingIdentityChoices.join(" | ")} (the usage event's usageId, or customer and month; per flow below)`,
    )
    .option("--link <path>", "depend on a local chargeguard checkout via file: (relative to <dir>), for development")
    .option("--stack <name>", "take the queue's latency budget from this stack's config (Pulumi.<name>.yaml in the current directory)")
    .option("--config-file <path>", "take the queue's latency budget from this stack config file (same shape as Pulumi.<stack>.yaml)")
    .option(
      "--vendor [checkout]",
      "pack chargeguard (this copy, or a built checkout) into <dir>/vendor with file: dependencies, so npm ci and docker build need no registry serving it (default when this chargeguard is not published)",
    )
    .option("--no-vendor", "depend on chargeguard from the npm registry (default when this chargeguard was published)")
    .addHelpText("after", `${billingIdentityHelp()}\n${exitCodesHelp({ 0: "created", 2: "a directory that is not empty, an unknown flow or queue" })}`)
    .action(async (dir: string, flags: NewConsumerFlags, self: Command) => {
      const given = self.options.some((option) => self.getOptionValueSource(option.attributeName()) === "cli");
      const copy = runningChargeguard();
      const options =
        !given && process.stdin.isTTY
          ? await promptScaffoldOptions(dir, undefined, { from: copy.root, byDefault: !copy.published }).catch((error: unknown) => {
              throw error instanceof PromptInterrupted ? new CliError(error.message, exitCodes.interrupted) : error;
            })
          : optionsFromFlags(dir, flags);
      // The prompt's "no" to vendoring is --no-vendor; a flag's absence leaves it to whether this copy was published.
      const source = dependencySource(given || !process.stdin.isTTY ? flags : { vendor: options.vendor ?? false }, copy);
      let result: Awaited<ReturnType<typeof scaffoldConsumer>>;
      try {
        const fromStack = flags.stack || flags.configFile ? stackBudget(options.queue, flags.stack, flags.configFile) : undefined;
        const { vendor: _asked, ...rest } = options;
        result = await scaffoldConsumer({ ...rest, ...(source.vendor === undefined ? {} : { vendor: source.vendor }), ...(fromStack ? { stackBudget: fromStack } : {}) });
      } catch (error: unknown) {
        if (!(error instanceof StackConfigError || error instanceof ScaffoldError)) throw error;
        const byDefault = flags.vendor === undefined && source.vendor !== undefined ? " (chargeguard is vendored by default: this copy is not on the npm registry; --no-vendor depends on the registry)" : "";
        console.error(`chargeguard new consumer: ${error.message}${byDefault}`);
        process.exitCode = 2;
        return;
      }
      printCreated(options, result, source.note);
    });
}

function optionsFromFlags(dir: string, flags: NewConsumerFlags): ScaffoldOptions {
  return {
    directory: dir,
    name: flags.name ?? path.basename(path.resolve(dir)),
    queue: flags.queue ?? "usage-billing",
    // ISO 4217 codes are written in capitals; Stripe wants them in lower case.
    currency: (flags.currency ?? "usd").toLowerCase(),
    database: flags.db ?? "pglite",
    vault: flags.vault ?? "env",
    // Unchecked here: scaffoldConsumer names an unknown flow with every other invalid option.
    // Absent: the stack's flow for the queue (with --stack), else payment-intent.
    ...(flags.flow === undefined ? {} : { flow: flags.flow as FlowChoice }),
    ...(flags.billingIdentity === undefined ? {} : { billingIdentity: flags.billingIdentity as BillingIdentityChoice }),
    ...(flags.link === undefined ? {} : { link: flags.link }),
    ...(flags.telemetry === undefined ? {} : { telemetry: flags.telemetry }),
  };
}

function printCreated(options: ScaffoldOptions, result: Awaited<ReturnType<typeof scaffoldConsumer>>, note: string | undefined): void {
  const shown = path.relative(process.cwd(), result.directory) || ".";
  const flow = result.flow;
  console.log(`Created ${options.name} in ${shown} (${result.files.length} files, ${flow} flow, billing identity ${result.billingIdentity} in src/event.ts).`);
  if (note !== undefined) console.log(note);
  const budget = result.queueBudget;
  if (budget.stack === null) {
    console.log(`Tuning: ${budget.source}. ${queueBudgetPath} holds it; to take queue ${options.queue}'s budget from a stack, ${regenerateCommand(options.queue)}.`);
  } else {
    console.log(`Tuning: queue ${options.queue}'s budget from ${budget.source.split(",")[0]} (stack ${budget.stack}), in ${queueBudgetPath}.`);
  }
  console.log("Next:");
  console.log(`  cd ${shown}`);
  console.log("  npm install");
  console.log("  npm test        # runs the consumer against the local sandbox");
  console.log("  npm start       # reads the run contract from the environment, see README.md");
}
