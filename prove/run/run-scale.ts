// What a run's scale is, said the same way in the table, the HTML page and the JSON: the default run is a smaller
// one, so the report says so and says how to run the full proof.

/**
 * The default run (`npm start`): a verdict in under two minutes on two cores, with every contender, every fault and
 * every flow. 1,000 events still give each fault of the plan dozens of targets per contender and each broken example
 * its failure dozens to hundreds of times (seed 7: 40 to 242 duplicates); 300 per other flow give each of those
 * contenders every fault several times over. 1,500 events took `npm start` to 141-146 s on 2026-12-04 (about 9 s of
 * CPU per contender per 1,000 events, BENCHMARKS.md); 1,000 brought it to 116-125 s. `provingGroundFull`
 * (`npm start -- --full`) is the 10,000-event proof, the one BENCHMARKS.md records beside the default run.
 */
export const provingGroundDefaults = { events: 1_000, flowEvents: 300, replicas: 4, seed: 7 } as const;
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
