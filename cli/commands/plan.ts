import type { Command } from "commander";
import { exitCodesHelp, UsageError } from "../exit-codes.js";
import { pulumiPeers, withPeers } from "../optional-peer.js";
import { checkStackFlags } from "../stack-flags.js";

interface PlanFlags {
  stack?: string;
  configFile?: string;
  json?: boolean;
  details?: boolean;
  baseline?: string;
}

// `chargeguard plan`: thin; the engine is infra/plan. Loaded lazily so other commands never load Pulumi.
export function register(program: Command): void {
  program
    .command("plan")
    .description(
      "plan a stack offline: run the Pulumi program under mocks with the stack's config, summarize what `pulumi up` " +
        "would create (each queue's throughput, lock, access and alerts) and check the policy pack",
    )
    .option("-s, --stack <name>", "stack to plan: reads Pulumi.<name>.yaml in the current directory")
    .option("-c, --config-file <path>", "plan this stack config file instead (same shape as Pulumi.<stack>.yaml)")
    .option("--details", "after the summary, every derivation, each alert's signal and window, every role assignment with its scope, the operator's steps")
    .option("--json", "print { stack, resources, queues, consumers, secrets, alerts, violations } as JSON (everything; --details does not change it)")
    .option(
      "--baseline <file>",
      "the deployed stack to plan the change against (the previous Pulumi.<stack>.yaml, or `pulumi stack export` JSON): lists the deletes a delete lock or protect refuses and the procedure; exit 1 when a lock refuses one",
    )
    .addHelpText("after", exitCodesHelp({ 0: "planned, no mandatory violation", 1: "a mandatory policy violation, or a delete a lock refuses (--baseline)", 2: "an invalid stack config" }))
    .action(async (flags: PlanFlags) => {
      if (!flags.stack && !flags.configFile) throw new UsageError("give --stack <name> (reads Pulumi.<name>.yaml) or --config-file <path>");
      checkStackFlags(flags.stack, flags.configFile);
      const { formatPlan, planExitCode, planStack, StackConfigError } = await withPeers("chargeguard plan", pulumiPeers, () => import("../../infra/plan/index.js"));
      try {
        const plan = await planStack({
          ...(flags.stack ? { stack: flags.stack } : {}),
          ...(flags.configFile ? { configFile: flags.configFile } : {}),
          ...(flags.baseline ? { baseline: flags.baseline } : {}),
        });
        console.log(flags.json ? JSON.stringify(plan.report, null, 2) : formatPlan(plan, { details: flags.details === true }));
        process.exitCode = planExitCode(plan.report);
      } catch (error) {
        throw error instanceof StackConfigError ? new UsageError(error.message) : error;
      }
    });
}
