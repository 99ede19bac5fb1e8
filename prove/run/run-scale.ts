// What a run's scale is, said the same way in the table, the HTML page and the JSON: the default run is a smaller
// one, so the report says so and says how to run the full proof.

/**
 * The default run (`npm start`): every contender, every fault and every flow, at a scale where each broken example still
 * fails by the dozens. 500 events per PaymentIntent contender and 150 per other flow's: at seed 7 the
 * broken examples showed 16 to 117 duplicates in three runs, at seed 1 26 to 137 (2026-12-07). Measured side by side
 * with the previous default (1,000 / 300) on the loaded 2-core machine, the smaller run took 0.68 of its wall time and
 * 0.64 of its CPU: below this size, the cost per contender is its setup, its waits (locks, fault delays, leases) and
 * its audit (BENCHMARKS.md, "npm start and npm test"). `provingGroundFull` (`npm start -- --full`) is the 10,000-event proof,
 * the one BENCHMARKS.md records beside the default run.
 */
export const provingGroundDefaults = { events: 500, flowEvents: 150, replicas: 4, seed: 7 } as const;
export const provingGroundFull = { events: 10_000, flowEvents: 1_000 } as const;

/** The sizes a run was given. */
export interface RunSize {
  events: number;
  flowEvents: number;
  replicas: number;
}

export interface RunScale extends RunSize {
  /** True when the run had at least the full proof's events in every flow. */
  full: boolean;
}

export function runScale(result: RunSize): RunScale {
  const full = result.events >= provingGroundFull.events && result.flowEvents >= provingGroundFull.flowEvents;
  return { events: result.events, flowEvents: result.flowEvents, replicas: result.replicas, full };
}

export function describeScale(result: RunSize): string {
  const scale = runScale(result);
  const count = (n: number) => n.toLocaleString("en-US");
  const sizes = `${count(scale.events)} events for the PaymentIntent contenders, ${count(scale.flowEvents)} for each other flow's, ${scale.replicas} replicas per contender`;
  if (scale.full) return `scale: ${sizes} (the full proof)`;
  return (
    `scale: ${sizes}; a shorter run with every contender, fault and flow. ` +
    `The full proof (${count(provingGroundFull.events)} / ${count(provingGroundFull.flowEvents)} events): npm start -- --full`
  );
}
