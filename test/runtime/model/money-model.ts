// The money model's property: for a cell drawn from the matrix and a sequence of commands drawn by `fc.commands`,
// open a fresh world (two replicas, a fresh queue and database), run the commands (`fc.asyncModelRun`), then drain
// and check the money invariants (model-invariants.ts). fast-check shrinks a failure to a short sequence and reports
// its seed and path; CHARGEGUARD_MODEL_SEED and CHARGEGUARD_MODEL_PATH replay exactly that counterexample.
import fc from "fast-check";
import { afterAll, beforeAll } from "vitest";
import { postgresServerUrl } from "../../support/postgres-server.js";
import { cellName, type ModelCell } from "./model-cells.js";
import { makeEvent, moneyCommands } from "./model-commands.js";
import { drainAndCheck, type MoneyModel } from "./model-invariants.js";
import { runOpenings } from "./model-openings.js";
import { ModelWorld, modelSpendCaps, startModelInfra, type ModelInfra } from "./model-world.js";

export interface MoneyModelCheck {
  infra: ModelInfra;
  cells: fc.Arbitrary<ModelCell>;
  numRuns: number;
  maxCommands: number;
  /** Generation and shrinking stop here: a failure found is still reported (shrunk as far as it got). */
  timeLimitMs: number;
}

/** Runs counted across the test file: each run's queue, customers and owners carry its number. */
let runs = 0;

/**
 * What replays a failure: `CHARGEGUARD_MODEL_SEED=<seed> CHARGEGUARD_MODEL_PATH=<path>` (fast-check's `seed` and
 * `path`) and `CHARGEGUARD_MODEL_REPLAY_PATH=<replayPath>` (the commands' own, printed in the counterexample: which
 * commands ran, so the shrunk sequence is rebuilt exactly).
 */
function replay(): { seed: number; path?: string } | undefined {
  const seed = process.env.CHARGEGUARD_MODEL_SEED;
  if (seed === undefined || seed === "") return undefined;
  const path = process.env.CHARGEGUARD_MODEL_PATH;
  return { seed: Number(seed), ...(path ? { path } : {}) };
}

/** CHARGEGUARD_MODEL_TRACE=1: each run's phases and their times on stderr (to size the runs). */
const trace = (line: string) => {
  if (process.env.CHARGEGUARD_MODEL_TRACE) process.stderr.write(`${line}\n`);
};

/** Records what would end a replica process: an unhandled rejection or an uncaught exception anywhere in the fleet. */
function watchProcess(into: string[]): () => void {
  const rejection = (reason: unknown) => into.push(`unhandled rejection (a replica process would exit): ${String(reason)}`);
  const exception = (error: Error) => into.push(`uncaught exception (a replica process would exit): ${error.stack ?? String(error)}`);
  process.on("unhandledRejection", rejection);
  process.on("uncaughtException", exception);
  return () => {
    process.off("unhandledRejection", rejection);
    process.off("uncaughtException", exception);
  };
}

type Cmd = fc.AsyncCommand<MoneyModel, ModelWorld>;

async function oneRun(infra: ModelInfra, cell: ModelCell, cmds: Iterable<Cmd>, opening: Cmd[] = []): Promise<void> {
  const run = ++runs;
  const exits: string[] = [];
  const unwatch = watchProcess(exits);
  const started = performance.now();
  const world = await ModelWorld.open(infra, cell, run);
  const lap = (what: string) => trace(`run ${run} ${cellName(cell)}: ${what} at ${Math.round(performance.now() - started)} ms`);
  lap("opened");
  try {
    const model: MoneyModel = { cell, events: [], messages: 0, faults: new Set() };
    await fc.asyncModelRun(() => ({ model, real: world }), [...opening, ...cmds]);
    lap(`commands run (${[...opening, ...cmds].map(String).join(", ")})`);
    let extra = 0;
    const violations = await drainAndCheck(world, model, (kind, billing) =>
      makeEvent(world, kind, billing?.amountCents ?? 90_000 + model.events.length + extra++, billing?.currency ?? modelSpendCaps.uncapped),);
    violations.push(...exits);
    lap(`checked (${violations.length} violations)`);
    if (violations.length > 0) {
      throw new Error(`${cellName(cell)}: the money invariants broke:\n - ${violations.join("\n - ")}\nthe fleet's last lines:\n${world.logs.slice(-25).join("\n")}`);
    }
  } finally {
    await world.close();
    unwatch();
  }
}

/** One run of commands written out (not drawn), checked as a drawn run is. */
export async function checkScenario(infra: ModelInfra, cell: ModelCell, cmds: Cmd[]): Promise<void> {
  await oneRun(infra, cell, cmds);
}

export async function checkMoneyModel(check: MoneyModelCheck): Promise<void> {
  const replayPath = process.env.CHARGEGUARD_MODEL_REPLAY_PATH;
  const commands = fc.commands(moneyCommands(), { maxCommands: check.maxCommands, ...(replayPath ? { replayPath } : {}) });
  // A drawn opening before the drawn commands (model-openings.ts): what the commands' own weights met too seldom at the
  // small size.
  const property = fc.asyncProperty(check.cells, runOpenings(), commands, (cell, opening, cmds) => oneRun(check.infra, cell, cmds, opening));
  const replaying = replay();
  const details = await fc.check(property, {
    numRuns: check.numRuns,
    interruptAfterTimeLimit: check.timeLimitMs,
    markInterruptAsFailure: false,
    ...(replaying ?? {}),
  });
  if (details.failed) {
    const report = fc.defaultReportMessage(details) ?? "";
    const commandsPath = /replayPath="([^"]*)"/.exec(report)?.[1] ?? "";
    const again =
      `replay: CHARGEGUARD_MODEL_SEED=${details.seed} CHARGEGUARD_MODEL_PATH=${details.counterexamplePath ?? ""} ` +
      `CHARGEGUARD_MODEL_REPLAY_PATH='${commandsPath}' node scripts/with-postgres.mjs -- npx vitest run <this file> -t "<this test>"`;
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`${report}\n${again}\n\nthe shrunk counterexample's failure:\n${error}`);
  }
  // No silent shortfall: a check that ran out of time before its runs says so.
  if (details.interrupted || (replaying?.path === undefined && details.numRuns < check.numRuns)) {
    throw new Error(`the money model ran ${details.numRuns} of ${check.numRuns} runs within ${check.timeLimitMs} ms (seed ${details.seed}): raise the time limit or lower the runs`);
  }
}

/**
 * The emulators and PostgreSQL server for a test file's model runs, started before its tests and stopped after.
 * PostgreSQL is required, never skipped: without TEST_DATABASE_URL a server is started for the file, or it fails.
 */
export function modelInfraForFile(): () => ModelInfra {
  let infra: ModelInfra | undefined;
  beforeAll(async () => {
    infra = await startModelInfra(await postgresServerUrl());
  });
  afterAll(async () => {
    await infra?.stop();
  });
  return () => {
    if (infra === undefined) throw new Error("the model's emulators did not start (see the beforeAll error)");
    return infra;
  };
}
