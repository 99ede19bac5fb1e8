#!/usr/bin/env node
// npm run bench:import: the time and resident memory to import `chargeguard/runtime` from this checkout's build, the
// quick loop for issue 32's "under 300 ms" (bench:footprint measures the same from a generated consumer's install,
// which takes minutes). Median of BENCH_RUNS fresh processes (default 7). Give other built `dist` directories as
// arguments (e.g. a copy of an older build) to compare: their runs alternate with this build's, so a machine whose load
// changes during the run weighs on every build alike.
import { loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { importOnce, median } from "./footprint/import-cost.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const builds = [fileURLToPath(new URL("../dist", import.meta.url)), ...process.argv.slice(2).map((dist) => path.resolve(dist))];
const samples = builds.map(() => []);
const load = [loadavg()[0]];
for (let run = 0; run < RUNS; run += 1) {
  builds.forEach((dist, index) => samples[index].push(importOnce(path.join(dist, "runtime/index.js"))));
}
load.push(loadavg()[0]);
console.log(`import chargeguard/runtime, median of ${RUNS} fresh processes (load average ${load.map((value) => value.toFixed(1)).join(" -> ")}):`);
builds.forEach((dist, index) => {
  const ms = samples[index].map((sample) => sample.ms);
  const rss = samples[index].map((sample) => sample.rss);
  console.log(`  ${path.relative(process.cwd(), dist) || "."}: ${median(ms).toFixed(0)} ms (${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)}), ${median(rss).toFixed(0)} MB resident`);
});
