import type { Command } from "commander";

interface PlanFlags {
  stack?: string;
  configFile?: string;
  json?: boolean;
}

// `chargeguard plan`: thin; the engine is infra/plan. Loaded lazily so other commands never load Pulumi.
export function register(program: Command): void {
  program
    .command("plan")
    .description(
      "Plan a stack offline: run the Pulumi program under mocks with the stack's config, show each billing queue's " +
        "settings, alerts and access, and check the policy pack. Exit 1 on a mandatory violation, 2 on invalid config.",
    )
    .option("-s, --stack <name>", "stack to plan: reads Pulumi.<name>.yaml in the current directory")
    .option("-c, --config-file <path>", "plan this stack config file instead (same shape as Pulumi.<stack>.yaml)")
    .option("--json", "print { stack, resources, queues, violations } as JSON")
    .action(async (flags: PlanFlags) => {
      if (!flags.stack && !flags.configFile) {
        console.error("chargeguard plan: give --stack <name> (reads Pulumi.<name>.yaml) or --config-file <path>");
        process.exitCode = 2;
        return;
      }
      const { formatPlan, planExitCode, planStack, StackConfigError } = await import("../../infra/plan/index.js");
      try {
        const plan = await planStack({
          ...(flags.stack ? { stack: flags.stack } : {}),
          ...(flags.configFile ? { configFile: flags.configFile } : {}),
        });
        console.log(flags.json ? JSON.stringify(plan.report, null, 2) : formatPlan(plan));
        process.exitCode = planExitCode(plan.report);
      } catch (error) {
        if (!(error instanceof StackConfigError)) throw error;
        console.error(`chargeguard plan: ${error.message}`);
        process.exitCode = 2;
      }
    });
}
