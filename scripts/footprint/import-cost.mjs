// The time and resident memory to import a built module in a fresh process: shared by bench:footprint (the runtime as
// a generated consumer installs it) and bench:import (this checkout's build), so both measure the same way.
import { execFileSync } from "node:child_process";

/** The middle value (the upper one of an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One fresh process: milliseconds from before the `import()` to after it, and resident memory (MiB) after it. */
export function importOnce(entry) {
  const probe = `const t=performance.now();await import(${JSON.stringify(entry)});` +
    "console.log(JSON.stringify({ms:performance.now()-t,rss:process.memoryUsage().rss/1048576}))";
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" }));
}

/** Median milliseconds and resident MiB of `runs` fresh processes importing `entry` (an absolute path). */
export function importCost(entry, runs) {
  const samples = Array.from({ length: runs }, () => importOnce(entry));
  return { ms: median(samples.map((sample) => sample.ms)), rss: median(samples.map((sample) => sample.rss)) };
}
