// What each contender of a run gets: the sizes checked against the harness's limits, and per size one seeded
// workload, its fault plan and the harness settings scaled to it. The PaymentIntent contenders run `events`; the
// other flows' contenders `flowEvents` (their own workload and plan, from the same seed and faults).
import type { Contender } from "../contender/contenders.js";
import { faultNames, planFaults, type FaultPlan } from "../faults/faults.js";
import type { ProvingGroundOptions } from "./run-types.js";
import { provingGroundDefaults } from "./run-scale.js";
import { harnessSettings, type HarnessSettings } from "./settings.js";
import { generateWorkload, type Workload } from "../workload/workload.js";

/**
 * The largest run the harness takes: the workload and every observed delivery are held in memory, and each replica
 * holds AMQP links, so past these a run exhausts the machine instead of proving anything.
 */
export const provingGroundLimits = { events: 1_000_000, flowEvents: 1_000_000, replicas: 64, parallel: 32 } as const;

/** One size's run: its workload, the faults planned on it and the settings scaled to it. */
export interface SizedRun {
  events: number;
  workload: Workload;
  plan: FaultPlan;
  settings: HarnessSettings;
}

export interface RunInputs {
  events: number;
  flowEvents: number;
  replicas: number;
  seed: number;
  /** The faults the run plans (the PaymentIntent workload's plan: every size plans the same names). */
  faults: FaultPlan["faults"];
  runFor(contender: Pick<Contender, "flow">): SizedRun;
}

type SizeOptions = Pick<ProvingGroundOptions, "events" | "flowEvents" | "replicas" | "parallel" | "seed" | "faults" | "settings">;

/** Throws a RangeError naming the first size out of its limits. */
export function prepareRunInputs(options: SizeOptions): RunInputs {
  const events = options.events ?? provingGroundDefaults.events;
  const replicas = options.replicas ?? provingGroundDefaults.replicas;
  const flowEvents = Math.min(events, options.flowEvents ?? provingGroundDefaults.flowEvents);
  for (const [name, value] of [["events", events], ["flowEvents", options.flowEvents ?? flowEvents], ["replicas", replicas], ["parallel", options.parallel ?? 1]] as const) {
    const max = provingGroundLimits[name];
    if (!Number.isSafeInteger(value) || value < 1 || value > max) throw new RangeError(`${name} must be a whole number from 1 to ${max}, got ${value}`);
  }
  const seed = options.seed ?? provingGroundDefaults.seed;
  const faults = options.faults ?? faultNames;
  const runs = new Map(
    [...new Set([events, flowEvents])].map((count) => {
      const workload = generateWorkload({ events: count, seed });
      return [count, { events: count, workload, plan: planFaults(workload, { faults, seed }), settings: { ...harnessSettings(count), ...options.settings } }];
    }),
  );
  const runFor = (contender: Pick<Contender, "flow">) => runs.get(contender.flow === "payment-intent" ? events : flowEvents)!;
  return { events, flowEvents, replicas, seed, faults: runFor({ flow: "payment-intent" }).plan.faults, runFor };
}
