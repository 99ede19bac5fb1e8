import type { Command } from "commander";

// Placeholder until its room lands: says so instead of pretending to work.
export function register(program: Command): void {
  program
    .command("reconcile")
    .description("not built yet")
    .action(() => {
      console.error("chargeguard reconcile: not built yet");
      process.exitCode = 2;
    });
}
