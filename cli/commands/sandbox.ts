import type { Command } from "commander";

// Placeholder until its room lands: says so instead of pretending to work.
export function register(program: Command): void {
  program
    .command("sandbox")
    .description("not built yet")
    .action(() => {
      console.error("chargeguard sandbox: not built yet");
      process.exitCode = 2;
    });
}
