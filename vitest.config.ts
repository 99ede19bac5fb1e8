import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const room = (name: string) => fileURLToPath(new URL(`./${name}/index.ts`, import.meta.url));
// Every package entry point ("chargeguard/runtime/guard" is its own entry, not a file under "chargeguard/runtime").
const entries = ["infra", "runtime", "sandbox", "templates", "tuning"].concat(
  ["guard", "flows", "handler", "telemetry", "operator", "audit"].map((subpath) => `runtime/${subpath}`),
);

/**
 * The end-to-end files that guard the money, which `npm test` runs beside the fast set (under five minutes on two
 * cores): the consumer per flow through the real SDKs against the emulators, a replica killed at every step boundary
 * (PGlite and PostgreSQL), the rights the infra deploys, settlements that must keep their own outcome, errors inside
 * the guard, the reconciler, and the money model (fast-check's model-based test across flow x store x vault, small
 * size: test/runtime/model/). `npm run test:all` runs every project (the model's large size among the e2e files).
 */
const moneyGuards = [
  "test/runtime/consumer/consumer.e2e.test.ts",
  "test/runtime/consumer/consumer.postgres.e2e.test.ts",
  "test/runtime/consumer/consumer-flows.e2e.test.ts",
  "test/runtime/flows/flows.e2e.test.ts",
  "test/runtime/consumer/consumer-rights.e2e.test.ts",
  "test/runtime/consumer/settlement-gate.e2e.test.ts",
  "test/runtime/guard/guard-errors.e2e.test.ts",
  "test/runtime/operator/reconcile.e2e.test.ts",
  "test/runtime/model/money-model.e2e.test.ts",
];

export default defineConfig({
  resolve: {
    // Tests run the TypeScript sources; "chargeguard/<entry>" means the source room, not dist/.
    alias: entries.map((entry) => ({ find: new RegExp(`^chargeguard/${entry}$`), replacement: room(entry) })),
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // `npm run test:unit` runs the fast set (`--project unit`, under a minute); `npm test` runs it and the money
    // guards; `npm run test:all` runs all three. End-to-end files (built CLI or bin spawned, npm installs, emulators
    // driven by the real SDKs for seconds) are named *.e2e.test.ts.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          // Vitest's default is one worker fewer than the cores: one on a 2-core machine. The fast set is CPU-bound.
          maxWorkers: Math.max(2, availableParallelism()),
          // Projects with their own maxWorkers run as ordered groups: the fast set first, then the end-to-end set.
          sequence: { groupOrder: 0 },
          // One module graph per worker, not per file: re-importing the rooms for each file cost 45 s of 120 s.
          isolate: false,
          include: ["test/**/*.test.ts", "eslint-plugin/tests/**/*.test.ts"],
          exclude: ["**/*.e2e.test.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "money",
          maxWorkers: Math.max(3, availableParallelism()),
          sequence: { groupOrder: 1 },
          include: moneyGuards,
          maxConcurrency: 16,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          // End-to-end files mostly wait (npm installs, emulators, the harness's locks): more files than cores overlap.
          maxWorkers: Math.max(3, availableParallelism()),
          sequence: { groupOrder: 2 },
          include: ["test/**/*.e2e.test.ts", "eslint-plugin/tests/**/*.e2e.test.ts"],
          exclude: moneyGuards,
          // Concurrent describes (independent proving-ground runs) mostly wait on the harness's scaled-down locks and
          // faults, not on the CPU: let all of a file's runs overlap.
          maxConcurrency: 16,
        },
      },
    ],
  },
});
