// The timing rounds: a warm-up, then alternating runs without and with the plugin, and the medians and overhead ratio
// they come to. The ratio is taken on CPU time: on a shared machine wall-clock time mostly measures the neighbours.
import { lint } from "./lint-once.mjs";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs `rounds` alternating rounds on `directory`, printing each run; returns the runs without and with the plugin. */
export async function timeRounds(directory, { rounds, typed }) {
  await lint(directory, { typed, withPlugin: false }); // warm-up: module loading, JIT
  await lint(directory, { typed, withPlugin: true });
  const runs = { without: [], with: [] };
  let files = 0;
  let reports = 0;
  for (let round = 0; round < rounds; round += 1) {
    // Alternate which goes first, so drift on a shared machine hits both sides.
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const plugin of order) {
      const run = await lint(directory, { typed, withPlugin: plugin });
      runs[plugin ? "with" : "without"].push(run);
      files = run.files;
      if (plugin) reports = run.reports;
      const label = plugin ? "with chargeguard   " : typed ? "typescript-eslint (type-checked)" : "typescript-eslint  ";
      console.log(`round ${round + 1}: ${label} cpu ${run.cpu.toFixed(0)} ms, wall ${run.wall.toFixed(0)} ms, ${run.reports} reports`);
    }
  }
  return { runs, files, reports };
}

/** Prints the medians and whether the CPU-time overhead meets `target` (a fraction: 0.05 is +5%). */
export function reportOverhead({ runs, files, reports }, { corpus, config, target }) {
  const cpuWithout = median(runs.without.map((run) => run.cpu));
  const cpuWith = median(runs.with.map((run) => run.cpu));
  const wallWithout = median(runs.without.map((run) => run.wall));
  const wallWith = median(runs.with.map((run) => run.wall));
  const overhead = cpuWith / cpuWithout - 1;
  console.log(`files linted: ${files}; chargeguard reports: ${reports} (the corpus's deliberately broken consumers)`);
  console.log(`median CPU time: ${cpuWithout.toFixed(0)} ms without the plugin, ${cpuWith.toFixed(0)} ms with configs["${config === "recommended" ? "recommended" : "recommended-type-checked"}"]`);
  console.log(`median wall time: ${wallWithout.toFixed(0)} ms without, ${wallWith.toFixed(0)} ms with (ratio ${(wallWith / wallWithout).toFixed(3)})`);
  // Each round measured its two runs back to back: the median of those ratios is less exposed to a neighbour that
  // loads the machine for a whole round than the ratio of the two medians.
  const paired = median(runs.with.map((run, round) => run.cpu / runs.without[round].cpu));
  console.log(`median of the rounds' own CPU ratios: ${paired.toFixed(3)}`);
  console.log(`[${corpus}] overhead: ${(overhead * 100).toFixed(1)}% of CPU time (ratio ${(cpuWith / cpuWithout).toFixed(3)}; target <= ${(target * 100).toFixed(0)}%): ${overhead <= target ? "met" : "NOT met"}`);
}
