// The money model, large size (`npm run test:all`, the e2e project): every cell of flow x store x vault gets its own
// property (none left to sampling), each with CHARGEGUARD_MODEL_RUNS runs (default 3) of up to
// CHARGEGUARD_MODEL_COMMANDS commands (default 20). Same commands, same invariants as the small size
// (money-model.e2e.test.ts, whose header lists them); about 10 s a run when nothing fails, so the defaults take about
// 12 minutes on two cores (24 cells since the vault is drawn three ways: plain, the vault's keys alone, beside a plain
// key; estimated from the 16 cells' 8 minutes, not measured).
//
// Replay a failure: the report prints `seed`, `path` and the commands' `replayPath`; run
//   CHARGEGUARD_MODEL_SEED=<seed> CHARGEGUARD_MODEL_PATH=<path> CHARGEGUARD_MODEL_REPLAY_PATH='<replayPath>' \
//     node scripts/with-postgres.mjs -- npx vitest run test/runtime/model/money-model-matrix.e2e.test.ts -t "<cell>"
// PostgreSQL is required, never skipped: without TEST_DATABASE_URL a server is started for this file or it fails.
import fc from "fast-check";
import { describe, it } from "vitest";
import { allCells, cellName } from "./model-cells.js";
import { checkMoneyModel, modelInfraForFile } from "./money-model.js";

function positive(name: string, fallback: number): number {
  const given = process.env[name];
  if (given === undefined || given === "") return fallback;
  const value = Number(given);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${given}"`);
  return value;
}

const runsPerCell = positive("CHARGEGUARD_MODEL_RUNS", 3);
const maxCommands = positive("CHARGEGUARD_MODEL_COMMANDS", 20);
/** A run that fails waits out the drain's bound (30 s) and shrinking repeats runs: room for both. */
const timeLimitMs = runsPerCell * 60_000 + 120_000;

const infra = modelInfraForFile();

describe("the money invariants in every cell of the matrix (model-based, large)", () => {
  for (const cell of allCells) {
    it(cellName(cell), async () => {
      await checkMoneyModel({ infra: infra(), cells: fc.constant(cell), numRuns: runsPerCell, maxCommands, timeLimitMs });
    }, timeLimitMs + 120_000);
  }
});
