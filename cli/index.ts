#!/usr/bin/env node
// The `chargeguard` command. Thin: it parses arguments and hands over to the rooms (infra, runtime, sandbox,
// templates). Each subcommand lives in cli/commands/<name>.ts and exports `register(program)`.
import { Command, CommanderError } from "commander";
import { register as registerDlq } from "./commands/dlq.js";
import { register as registerNew } from "./commands/new.js";
import { register as registerPlan } from "./commands/plan.js";
import { register as registerProve } from "./commands/prove.js";
import { register as registerReconcile } from "./commands/reconcile.js";
import { register as registerSandbox } from "./commands/sandbox.js";
import { register as registerScan } from "./commands/scan.js";
import { exitCodeFor } from "./errors.js";
import { version } from "./version.js";

// exitOverride before the subcommands are registered, so they inherit it: commander's usage errors then reach the
// catch below and exit 2, not commander's default 1 (which some commands use for "found something").
const program = new Command("chargeguard")
  .description("Charge customers through Stripe from Azure Service Bus queues exactly once.")
  .version(version)
  .showHelpAfterError()
  .exitOverride();

for (const register of [registerPlan, registerNew, registerSandbox, registerProve, registerDlq, registerReconcile, registerScan]) {
  register(program);
}

program.parseAsync(process.argv).catch((error: unknown) => {
  // Commander has printed its own errors (and help or the version, exit 0).
  if (!(error instanceof CommanderError)) console.error(`chargeguard: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = exitCodeFor(error);
});
