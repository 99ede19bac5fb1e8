import { writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { type Command, InvalidArgumentError } from "commander";
import {
  faultCatalogue,
  faultNames,
  parseFaultNames,
  progressBar,
  provingGroundDefaults,
  renderHtmlReport,
  renderTables,
  runProvingGround,
  toJson,
} from "../../prove/index.js";

interface ProveOptions {
  events: number;
  replicas: number;
  parallel: number;
  seed: number;
  faults: string;
  only?: string;
  json?: boolean;
  report?: string;
  verbose?: boolean;
}

function positiveInteger(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isSafeInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`${name} must be a positive integer, got "${value}"`);
    return parsed;
  };
}

function integer(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new InvalidArgumentError(`seed must be an integer, got "${value}"`);
  return parsed;
}

// The proving ground: thin; the harness lives in prove/.
export function register(program: Command): void {
  program
    .command("prove")
    .description("run the seeds' broken consumers and the generated one side by side under seeded faults, and judge them")
    .option("--events <n>", "billing events in the workload", positiveInteger("--events"), provingGroundDefaults.events)
    .option("--replicas <n>", "competing replicas per contender", positiveInteger("--replicas"), provingGroundDefaults.replicas)
    .option("--parallel <n>", "contenders run at once, each in a worker thread", positiveInteger("--parallel"), availableParallelism())
    .option("--seed <n>", "seed of the workload and the fault schedule", integer, provingGroundDefaults.seed)
    .option("--faults <list>", `comma-separated faults, "all" or "none"`, "all")
    .option("--only <names>", "comma-separated contender names (default: all)")
    .option("--json", "print the results as JSON on stdout instead of tables")
    .option("--report <file>", "also write the results as a self-contained HTML page with a chart")
    .option("--verbose", "log what the harness and the consumers do, on stderr")
    .addHelpText(
      "after",
      `\nFaults:\n${faultNames.map((name) => `  ${name.padEnd(21)} ${faultCatalogue[name]}`).join("\n")}\n\n` +
        "Exit code 1 when the generated consumer does not pass.",
    )
    .action(async (options: ProveOptions) => {
      const faults = parseFaultNames(options.faults);
      const only = options.only?.split(",").map((name) => name.trim()).filter(Boolean);
      const bar = options.verbose ? undefined : progressBar();
      try {
        const result = await runProvingGround({
          events: options.events,
          replicas: options.replicas,
          parallel: options.parallel,
          seed: options.seed,
          faults,
          ...(only ? { only } : {}),
          ...(bar ? { onProgress: (update) => bar.update(update) } : {}),
          ...(options.verbose ? { log: (line) => console.error(line) } : {}),
        });
        bar?.stop();
        console.log(options.json ? JSON.stringify(toJson(result), null, 2) : renderTables(result));
        if (options.report) {
          await writeFile(options.report, renderHtmlReport(result));
          console.error(`report written to ${options.report}`);
        }
        const generated = result.contenders.filter((contender) => contender.kind === "generated");
        if (generated.some((contender) => !contender.verdict.startsWith("PASS"))) process.exitCode = 1;
      } finally {
        bar?.stop();
      }
      // Killed replicas are abandoned like dead processes, SDK clients included (they would retry their lost
      // connections forever): end the process once the results are out.
      process.stdout.write("", () => process.exit());
    });
}
