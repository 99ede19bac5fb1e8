// The money model's large size, one store's cells per test file (money-model-matrix-pglite.e2e.test.ts and
// money-model-matrix-postgres.e2e.test.ts), so the e2e pool runs the two halves side by side: a run mostly waits on
// the scaled-down faults, not on the CPU. Every cell of flow x vault gets its own property (none left to sampling),
// each with CHARGEGUARD_MODEL_RUNS runs (default 1) of up to CHARGEGUARD_MODEL_COMMANDS commands (default 14). Same
// commands, same invariants as the small size (money-model.e2e.test.ts, whose header lists them). One run per cell by
// default, of up to 14 commands: with three of 20, the two halves took about 460 s each, the longest files of CI's
// 30-minute budget (one of 20: 160-223 s, and CI at 30 min 8 s with the rest); fast-check
// draws new commands on every CI run, so the cells meet new sequences run after run. A soak sets the variables
// (CHARGEGUARD_MODEL_RUNS=10 npx vitest run test/runtime/model/money-model-matrix-postgres.e2e.test.ts).
//
// Replay a failure: the report prints `seed`, `path` and the commands' `replayPath`; run
//   CHARGEGUARD_MODEL_SEED=<seed> CHARGEGUARD_MODEL_PATH=<path> CHARGEGUARD_MODEL_REPLAY_PATH='<replayPath>' \
//     node scripts/with-postgres.mjs -- npx vitest run test/runtime/model/money-model-matrix-<store>.e2e.test.ts -t "<cell>"
// PostgreSQL is required for the postgres half, never skipped: without TEST_DATABASE_URL a server is started for it.
import fc from "fast-check";
import { describe, it } from "vitest";
import { allCells, cellName, type ModelStore } from "./model-cells.js";
import { checkMoneyModel, modelInfraForFile } from "./money-model.js";

function positive(name: string, fallback: number): number {
  const given = process.env[name];
  if (given === undefined || given === "") return fallback;
  const value = Number(given);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${given}"`);
  return value;
}

/** The large size's properties for one store's cells, in the calling test file. */
export function describeMatrix(store: ModelStore): void {
  const runsPerCell = positive("CHARGEGUARD_MODEL_RUNS", 1);
  const maxCommands = positive("CHARGEGUARD_MODEL_COMMANDS", 14);
  /** A run that fails waits out the drain's bound (30 s) and shrinking repeats runs: room for both. */
  const timeLimitMs = runsPerCell * 60_000 + 120_000;
  const infra = modelInfraForFile();
  describe(`the money invariants in every ${store} cell of the matrix (model-based, large)`, () => {
    for (const cell of allCells.filter((each) => each.store === store)) {
      it(cellName(cell), async () => {
        await checkMoneyModel({ infra: infra(), cells: fc.constant(cell), numRuns: runsPerCell, maxCommands, timeLimitMs });
      }, timeLimitMs + 120_000);
    }
  });
}
