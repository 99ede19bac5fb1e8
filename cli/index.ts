#!/usr/bin/env node
// The `chargeguard` command. Thin: it parses arguments and hands over to the rooms (infra, runtime, sandbox,
// templates). Each subcommand lives in cli/commands/<name>.ts and exports `register(program)`.
import { Command, CommanderError } from "commander";
import { exitCodeFor } from "./exit-codes.js";
import { applyUsageStyle, commandPath } from "./usage-style.js";
import { version } from "./version.js";

// A reader that stops reading (`chargeguard prove --help | head`) closes the pipe: that ends the output, not the
// process with an unhandled EPIPE and a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}

// exitOverride before the subcommands are registered, so they inherit it: commander's usage errors then reach the
// catch below and exit 2, not commander's default 1 (which some commands use for "found something").
const program = new Command("chargeguard")
  .description("Charge customers through Stripe from Azure Service Bus queues exactly once.")
  .version(version)
  .exitOverride();

// Each command's module loads only when that command runs (some bring the proving ground or the Service Bus SDK):
// `chargeguard plan ...` loads plan.ts alone. Without a known command (help, a typo) all are registered.
const commands: Record<string, () => Promise<{ register(program: Command): void }>> = {
  plan: () => import("./commands/plan.js"),
  new: () => import("./commands/new.js"),
  sandbox: () => import("./commands/sandbox.js"),
  prove: () => import("./commands/prove.js"),
  dlq: () => import("./commands/dlq.js"),
  reconcile: () => import("./commands/reconcile.js"),
  scan: () => import("./commands/scan.js"),
  audit: () => import("./commands/audit.js"),
};
const named = process.argv.slice(2).find((argument) => !argument.startsWith("-"));
const wanted = named !== undefined && Object.hasOwn(commands, named) ? [named] : Object.keys(commands);
for (const module of await Promise.all(wanted.map((name) => commands[name]!()))) module.register(program);
// After registering: every command, subcommands included, gets the one-line usage errors (cli/usage-style.ts).
applyUsageStyle(program);

// The command that runs, so its errors carry its name as the usage errors do: `chargeguard dlq peek: ...`.
let running: Command = program;
program.hook("preAction", (_program, action) => {
  running = action;
});

program.parseAsync(process.argv).catch(async (error: unknown) => {
  // Commander has printed its own errors (and help or the version, exit 0).
  // An error's text can quote outside bytes (a Stripe message, a message's field): redacted and terminal-safe.
  if (!(error instanceof CommanderError)) {
    // Through the runtime's door, loaded only on this path: `new`, `sandbox` and `plan` do not pay for the runtime.
    const { redactSecrets, terminalSafe } = await import("../runtime/index.js");
    console.error(`${commandPath(running)}: ${terminalSafe(redactSecrets(error instanceof Error ? error.message : String(error)), { multiline: true })}`);
  }
  process.exitCode = await exitCodeFor(error);
});
