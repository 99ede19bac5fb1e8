// The proving ground: the same seeded workload and fault plan against every contender, one after another (each with
// its own fresh emulators and database), and the results in one place.
import { contenders as allContenders, selectContenders, type Contender } from "./contenders.js";
import { FreshDatabases } from "./fresh-databases.js";
import { faultNames, planFaults, type FaultName } from "./faults.js";
import type { ContenderResult, ProvingGroundResult } from "./results.js";
import { runContender } from "./run-contender.js";
import { harnessSettings, type HarnessSettings } from "./settings.js";
import { generateWorkload } from "./workload.js";

export interface ProvingGroundOptions {
  events?: number;
  replicas?: number;
  seed?: number;
  faults?: readonly FaultName[];
  /** Contender names; absent: all. */
  only?: readonly string[];
  settings?: Partial<HarnessSettings>;
  onProgress?(update: { contender: string; index: number; count: number; done: number }): void;
  log?(line: string): void;
}

export const provingGroundDefaults = { events: 10_000, replicas: 4, seed: 7 } as const;

export async function runProvingGround(options: ProvingGroundOptions = {}): Promise<ProvingGroundResult> {
  const events = options.events ?? provingGroundDefaults.events;
  const replicas = options.replicas ?? provingGroundDefaults.replicas;
  const seed = options.seed ?? provingGroundDefaults.seed;
  const faults = options.faults ?? faultNames;
  const settings = { ...harnessSettings(events), ...options.settings };
  const workload = generateWorkload({ events, seed });
  const plan = planFaults(workload, { faults, seed });
  const chosen: Contender[] = selectContenders(allContenders(), options.only);

  const databases = new FreshDatabases();
  const started = Date.now();
  const results: ContenderResult[] = [];
  for (const [index, contender] of chosen.entries()) {
    const progress = (done: number) => options.onProgress?.({ contender: contender.name, index, count: chosen.length, done });
    progress(0);
    try {
      results.push(
        await runContender({
          contender,
          workload,
          plan,
          replicas,
          settings,
          databases,
          onProgress: progress,
          ...(options.log ? { log: options.log } : {}),
        }),
      );
    } catch (error) {
      options.log?.(`${contender.name}: could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      results.push(failedToRun(contender, events, error));
    }
    progress(1);
  }
  return { seed, events, replicas, faults: plan.faults, contenders: results, wallMs: Date.now() - started };
}

/** A contender the harness could not run at all still gets a row, with the reason, instead of ending the run. */
function failedToRun(contender: Contender, events: number, error: unknown): ContenderResult {
  const metrics = {
    events,
    deliveries: 0,
    paymentIntents: 0,
    charges: 0,
    duplicateCharges: 0,
    lostBillings: 0,
    overCapCents: 0,
    repeatedDeclines: 0,
    deadLettered: {},
    malformedEvents: 0,
    malformedDeadLettered: 0,
    malformedCharged: 0,
    unattributedCharges: 0,
    wallMs: 0,
  };
  const message = error instanceof Error ? error.message : String(error);
  return { name: contender.name, kind: contender.kind, metrics, verdict: `NOT RUN: ${message}`, error: message };
}
