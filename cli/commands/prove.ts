import { constants } from "node:fs";
import { access, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { availableParallelism } from "node:os";
import type { Command } from "commander";
import {
  contenders,
  faultCatalogue,
  faultNames,
  harnessSettings,
  parseFaultNames,
  progressReporter,
  provingGroundDefaults,
  provingGroundFull,
  provingGroundLimits,
  renderHtmlReport,
  parseScenarioNames,
  renderCompactTable,
  renderTables,
  describeVerdict,
  runOutcome,
  runProvingGround,
  runScenarios,
  scenarioCatalogue,
  scenarioDefaults,
  scenarioNames,
  virtualTimeFactor,
  type ScenarioName,
  selectContenders,
  toJson,
  type ProvingGroundResult,
} from "../../prove/index.js";
import { exitCodes, exitCodesHelp, UsageError } from "../exit-codes.js";
import { allowed, wholeNumber } from "../flag-values.js";
import { secretFlagValue } from "../secret-flag.js";

interface ProveOptions {
  events?: number;
  flowEvents?: number;
  full?: boolean;
  replicas: number;
  parallel: number;
  seed: number;
  faults: string;
  only?: string;
  json?: boolean;
  report?: string | false;
  verbose?: boolean;
  details?: boolean;
  scaleInGraceMs?: number;
  scenarios?: string;
  degraded?: boolean;
  chaos: boolean;
  scenarioEvents: number;
  databaseUrl?: string;
  databaseUrlFile?: string;
}

function boundedInteger(_name: string, max: number) {
  return wholeNumber(1, max);
}

/** The report is written at the end of a run that takes minutes: refuse a path that cannot be written before it starts. */
async function checkReportPath(file: string): Promise<void> {
  const target = resolve(file);
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`--report ${file} is a directory: give a file name, e.g. ${join(file, "prove.html")}`);
  try {
    await access(existing ? target : dirname(target), constants.W_OK);
  } catch {
    throw new UsageError(`--report ${file} cannot be written: ${existing ? "the file is not writable" : `${dirname(target)} does not exist or is not writable`}`);
  }
}

/** The HTML report's file when none is named: in the current directory, beside the tables a terminal shows. */
const defaultReport = "prove-report.html";

function integer(value: string): number {
  const parsed = /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(parsed)) throw allowed("a whole number, e.g. 7");
  return parsed;
}

/**
 * Two and a half contenders per core (5 on two): a contender spends much of its run waiting (scaled-down locks and
 * leases, fault delays), not computing. Measured on 2 cores, 2,000 / 300 events: 2 at once 157 s, 3 at once 116 s, 4
 * at once 99 s; at the 500 / 150 default, side by side at load 3-9: 4 at once 50-74 s, 5 at once 40-50 s, 6 at once
 * 37-62 s (one contender crowded out of the CPU) (BENCHMARKS.md).
 */
function defaultParallel(): number {
  return Math.min(provingGroundLimits.parallel, Math.ceil(2.5 * availableParallelism()));
}

// The proving ground: thin; the harness lives in prove/.
export function register(program: Command): void {
  program
    .command("prove")
    .description("run the seeds' broken consumers and the generated one side by side under seeded faults, and judge them")
    .option(
      "--events <n>",
      `billing events in the workload (default: ${provingGroundDefaults.events}, or ${provingGroundFull.events} with --full)`,
      boundedInteger("--events", provingGroundLimits.events),
    )
    .option(
      "--flow-events <n>",
      `billing events for the charge, invoice and meter-event contenders, at most --events (default: ${provingGroundDefaults.flowEvents}, or ${provingGroundFull.flowEvents} with --full)`,
      boundedInteger("--flow-events", provingGroundLimits.flowEvents),
    )
    .option("--full", `the full proof: ${provingGroundFull.events} events, ${provingGroundFull.flowEvents} per other flow (the default run is shorter, with every contender, fault and flow)`)
    .option("--replicas <n>", "competing replicas per contender", boundedInteger("--replicas", provingGroundLimits.replicas), provingGroundDefaults.replicas)
    .option(
      "--parallel <n>",
      "contenders run at once, each in a worker thread",
      boundedInteger("--parallel", provingGroundLimits.parallel),
      defaultParallel(),
    )
    .option("--seed <n>", "seed of the workload and the fault schedule", integer, provingGroundDefaults.seed)
    .option("--faults <list>", `comma-separated faults, "all" or "none"`, "all")
    .option("--only <names>", "comma-separated contender names (default: all)")
    .option("--json", "print the results as JSON on stdout instead of tables")
    .option("--details", "print every figure per contender after the compact table (deliveries, dead letters, the account audit, telemetry)")
    .option("--report <file>", `write the results as a self-contained HTML page: the verdict, charts, a row per contender (default: ${defaultReport} beside the tables; with --json only when given)`)
    .option("--no-report", "write no HTML report")
    .option(
      "--scale-in-grace-ms <ms>",
      `scale-in: SIGTERM to SIGKILL (default ${harnessSettings(provingGroundDefaults.events).scaleInGracePeriodMs}, the harness's message hold; shorter cuts charges in flight)`,
      // Container Apps allows a grace period of at most 600 s.
      boundedInteger("--scale-in-grace-ms", 600_000),
    )
    .option("--scenarios <list>", `degraded scenarios to run after the chaos run: comma-separated, "all" or "none" (default none; all with --degraded or --full)`)
    .option("--degraded", "also run every degraded scenario (the same as --scenarios all)")
    .option("--no-chaos", "skip the chaos run: only the degraded scenarios")
    .option(
      "--scenario-events <n>",
      "billing events per degraded scenario",
      boundedInteger("--scenario-events", provingGroundLimits.events),
      scenarioDefaults.events,
    )
    .option(
      "--database-url <url>",
      "PostgreSQL server for database-failover and database-hang, without a password (one with a password is refused: it would show in ps; default: env TEST_DATABASE_URL, which scripts/with-postgres.mjs sets)",
    )
    .option("--database-url-file <path>", "read that PostgreSQL URL from this file")
    .option("--verbose", "log what the harness and the consumers do, on stderr")
    .addHelpText(
      "after",
      `\nFaults:\n${faultNames.map((name) => `  ${name.padEnd(21)} ${faultCatalogue[name]}`).join("\n")}\n\n` +
        `Degraded scenarios (a dependency degraded for a window; naive-retry beside the generated consumer; windows in\n` +
        `virtual time, 1 wall second for ${virtualTimeFactor}, and the consumers' own backoffs scaled alike; rate limits in real time):\n` +
        `${scenarioNames.map((name) => `  ${name.padEnd(21)} ${scenarioCatalogue[name]}`).join("\n")}\n` +
        "  e.g. npx chargeguard prove --no-chaos --degraded; the database ones need PostgreSQL:\n" +
        "  node scripts/with-postgres.mjs -- npx chargeguard prove --no-chaos --scenarios database-failover,database-hang\n\n" +
        "The broken examples are expected to fail (each shows the failure its seed describes); the run passes when the\n" +
        "generated consumer passes, in the chaos run and in every degraded scenario that ran. A run given up on with\n" +
        "billings still in flight (a degraded scenario waits while its backlog shrinks, at most 5 minutes after the\n" +
        "recovery) did not settle: inconclusive, not lost money; --verbose shows each such event's record and messages.\n" +
        exitCodesHelp({
          0: "passed",
          1: "the generated consumer failed (money charged twice or lost, a valid event dead-lettered, ...)",
          2: "all checked before the run starts",
          3: "did not settle (inconclusive): nothing failed, but billings were still in flight when the wait ended",
        }),
    )
    .action(runProve);
}

/** Checks every input before the run (a mistake must not surface after minutes of work), runs, reports. */
async function runProve(options: ProveOptions): Promise<void> {
  if (options.full && (options.events !== undefined || options.flowEvents !== undefined)) {
    throw new UsageError("--full sets the events itself: give --full, or --events / --flow-events, not both");
  }
  const sizes = options.full ? provingGroundFull : provingGroundDefaults;
  const events = options.events ?? sizes.events;
  const flowEvents = options.flowEvents ?? Math.min(events, sizes.flowEvents);
  const faults = usage(() => parseFaultNames(options.faults));
  const only = options.only?.split(",").map((name) => name.trim()).filter(Boolean);
  if (only) usage(() => selectContenders(contenders(), only));
  // Beside the terminal tables by default; JSON (a machine reading stdout) gets one only when asked.
  const report = options.report === false ? undefined : (options.report ?? (options.json ? undefined : defaultReport));
  if (report) await checkReportPath(report);
  const scenarios = chosenScenarios(options);
  const bar = options.verbose || !options.chaos ? undefined : progressReporter();
  // Ctrl-C: one line and 130, instead of Node's silent default end (the contenders' workers and emulators go with it).
  process.once("SIGINT", () => {
    bar?.stop();
    console.error("proving ground: interrupted (Ctrl-C): no verdict; nothing is kept between runs but the database template cache");
    process.exit(exitCodes.interrupted);
  });
  try {
    const chaos = !options.chaos
      ? { seed: options.seed, events: 0, flowEvents: 0, replicas: options.replicas, faults: [], contenders: [], wallMs: 0 }
      : await runProvingGround({
      events,
      flowEvents,
      replicas: options.replicas,
      parallel: options.parallel,
      seed: options.seed,
      faults,
      ...(only ? { only } : {}),
      ...(options.scaleInGraceMs === undefined ? {} : { settings: { scaleInGracePeriodMs: options.scaleInGraceMs } }),
      ...(bar ? { onProgress: (update) => bar.update(update) } : {}),
      ...(options.verbose ? { log: (line) => console.error(line) } : {}),
    });
    bar?.stop();
    const result: ProvingGroundResult = scenarios.length === 0 ? chaos : { ...chaos, scenarios: await runScenarioPart(options, scenarios) };
    console.log(options.json ? JSON.stringify(toJson(result), null, 2) : options.details ? `${renderCompactTable(result)}\n\n${renderTables(result)}` : renderCompactTable(result));
    if (report) await writeFile(report, renderHtmlReport(result));
    const outcome = runOutcome(result);
    // The last line on stderr: what the run proved, so a reader of a column of failing broken examples knows that is expected.
    console.error(`proving ground: ${describeVerdict(result)}${report ? `; report: ${report}` : ""}`);
    if (outcome !== "passed") process.exitCode = outcome === "failed" ? exitCodes.failed : exitCodes.inconclusive;
  } finally {
    bar?.stop();
  }
  // Killed replicas are abandoned like dead processes, SDK clients included (they would retry their lost
  // connections forever): end the process once the results are out.
  process.stdout.write("", () => process.exit());
}

/** --scenarios, else all with --degraded or --full; a database scenario named explicitly needs a server. */
function chosenScenarios(options: ProveOptions): ScenarioName[] {
  const named = options.scenarios === undefined ? undefined : usage(() => parseScenarioNames(options.scenarios as string));
  const scenarios = named ?? (options.degraded || options.full ? [...scenarioNames] : []);
  if (!options.chaos && scenarios.length === 0) throw new UsageError("--no-chaos leaves nothing to run: give --scenarios or --degraded");
  // A password in a flag sits in the process list for every user of the host: refused, as reconcile refuses it.
  const givenUrl = secretFlagValue({ flag: "--database-url", envName: "TEST_DATABASE_URL", value: options.databaseUrl, file: options.databaseUrlFile });
  options.databaseUrl = givenUrl ?? process.env.TEST_DATABASE_URL;
  const needing = (named ?? []).filter((name) => name.startsWith("database-"));
  if (needing.length > 0 && !options.databaseUrl) {
    throw new UsageError(`${needing.join(", ")} need PostgreSQL: give --database-url, or run under node scripts/with-postgres.mjs --`);
  }
  return scenarios;
}

async function runScenarioPart(options: ProveOptions, scenarios: ScenarioName[]) {
  console.error(`degraded scenarios: ${scenarios.join(", ")} (${options.scenarioEvents} events each, the naive contender and the generated consumer)`);
  return runScenarios({
    scenarios,
    events: options.scenarioEvents,
    replicas: options.replicas,
    seed: options.seed,
    parallel: options.parallel,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    onProgress: (done, total) => console.error(`degraded scenarios: ${done} of ${total} contender runs done`),
    ...(options.verbose ? { log: (line: string) => console.error(line) } : {}),
  });
}

function usage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
