// The degraded scenarios' run: per scenario, the naive contender and the generated consumer over the same seeded
// workload (no per-event faults: the window is the fault), each with its own sandbox. They run in this thread,
// `parallel` at a time: a scenario's contenders spend most of the run waiting out the window, not computing.
import { naiveRetryExample } from "../../examples/broken/index.js";
import { generatedConsumerName, selectContenders, contenders as chaosContenders, type Contender } from "../contender/contenders.js";
import { FreshDatabases } from "../databases/fresh-databases.js";
import { planFaults } from "../faults/faults.js";
import { runInLanes } from "../run/lanes.js";
import { failedToRun } from "../run/proving-ground.js";
import type { ScenarioOutcome } from "../run/run-types.js";
import { runContender } from "../contender/run-contender.js";
import { scenarioSpecs, wallMsOf, type ScenarioName } from "./scenarios.js";
import { harnessSettings } from "../run/settings.js";
import { settleWaitDefaults } from "../contender/settle-wait.js";
import { generateWorkload } from "../workload/workload.js";

/** 200 events: half of them arrive during a window, enough for the naive contender to show its failure by the dozens. */
export type { ScenarioOutcome } from "../run/run-types.js";

export const scenarioDefaults = { events: 200, replicas: 4 } as const;

export interface ScenarioRunOptions {
  scenarios: readonly ScenarioName[];
  events?: number;
  replicas?: number;
  seed?: number;
  /** Scenario runs (contender x scenario) at once. */
  parallel?: number;
  /** A PostgreSQL server for the database scenarios; without one they are reported as not run. */
  databaseUrl?: string;
  onProgress?(done: number, total: number): void;
  log?(line: string): void;
}

export function naiveRetryContender(): Contender {
  return {
    name: naiveRetryExample.name,
    kind: "example",
    flow: "payment-intent",
    load: naiveRetryExample.load,
    failureMode: naiveRetryExample.failureMode,
    expectedFailure: naiveRetryExample.expectedFailure,
  };
}

export async function runScenarios(options: ScenarioRunOptions): Promise<ScenarioOutcome[]> {
  const events = options.events ?? scenarioDefaults.events;
  const replicas = options.replicas ?? scenarioDefaults.replicas;
  const seed = options.seed ?? 7;
  const workload = generateWorkload({ events, seed });
  const plan = planFaults(workload, { faults: [], seed });
  const [generated] = selectContenders(chaosContenders(), [generatedConsumerName]);
  // The scenarios keep the consumer's own lease (their windows and waits were measured with it): the chaos run's
  // scaled lease (contenders.ts) is not theirs.
  const pair: Contender[] = [naiveRetryContender(), { ...generated!, contextFor: undefined }];
  const runnable = options.scenarios.filter((name) => !scenarioSpecs[name].needsPostgres || options.databaseUrl !== undefined);
  const jobs = runnable.flatMap((scenario) => pair.map((contender) => ({ scenario, contender })));
  const databases = new FreshDatabases();
  let done = 0;
  const results = await runInLanes(jobs, Math.max(1, options.parallel ?? 2), (job) => -scenarioSpecs[job.scenario].lastsVirtualMs, async ({ scenario, contender }) => {
    const spec = scenarioSpecs[scenario];
    // Bounded: the window, then as long as the backlog shrinks, at most the cap (settle-wait.ts decides; a contender
    // that hangs is judged on what it did by then, what it left in flight unsettled, not lost).
    const settings = { ...harnessSettings(events), contenderTimeoutMs: wallMsOf(spec.startsAtVirtualMs + spec.lastsVirtualMs) + settleWaitDefaults.capAfterRecoveryMs };
    const log = options.log ? (line: string) => options.log?.(`[${scenario}] ${line}`) : undefined;
    try {
      return await runContender({
        contender,
        workload,
        plan,
        replicas,
        settings,
        databases,
        scenario: { name: scenario, ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }) },
        ...(log ? { log } : {}),
      });
    } catch (error) {
      // A run the harness could not finish (a database it could not create) still gets its row, with the reason.
      log?.(`${contender.name}: could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return failedToRun(contender, events, error);
    } finally {
      options.onProgress?.(++done, jobs.length);
    }
  });
  return options.scenarios.map((scenario) => {
    if (!runnable.includes(scenario)) {
      return { scenario, skipped: "needs PostgreSQL: run under `node scripts/with-postgres.mjs --` or give --database-url", contenders: [] };
    }
    return { scenario, contenders: results.filter((_, index) => jobs[index]!.scenario === scenario) };
  });
}
