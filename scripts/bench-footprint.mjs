#!/usr/bin/env node
// npm run bench:footprint: what a generated consumer carries. For each database choice (postgres, pglite) it generates
// a consumer from this checkout's packs (`chargeguard new consumer --vendor`, the packed-install path), installs it as
// its Dockerfile does (production dependencies only, from package.json and vendor/), and prints the size of
// node_modules, the biggest package groups, any package a consumer must not carry, and the time and memory to import
// `chargeguard/runtime` from the installed copy (median of BENCH_RUNS fresh processes, default 7). Then the operator's
// install: the chargeguard pack alone, production dependencies only (what `npm install chargeguard` brings to run
// `audit`, `reconcile` and `dlq`; Pulumi stays an optional peer for `plan` and infra).
// The install uses the npm cache first (--prefer-offline): it measures the install, not the network. Options
// (environment): BENCH_RUNS, BENCH_DB (postgres,pglite), BENCH_CHECKOUT.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { importCost } from "./footprint/import-cost.mjs";
import { forbiddenIn, groupSizes, SIZE_GOALS, sizeOf } from "./footprint/install-size.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
// BENCH_CHECKOUT: another built checkout to pack (e.g. an older commit, for the "before" figures).
const REPOSITORY = path.resolve(process.env.BENCH_CHECKOUT ?? fileURLToPath(new URL("..", import.meta.url)));
const CHOICES = (process.env.BENCH_DB ?? "postgres,pglite").split(",").map((choice) => choice.trim()).filter(Boolean);

function measure(scratch, database) {
  const project = path.join(scratch, `consumer-${database}`);
  execFileSync(process.execPath, [path.join(REPOSITORY, "dist/cli/index.js"), "new", "consumer", project, "--queue", "usage-billing", "--db", database, "--vendor", REPOSITORY], { stdio: "ignore" });
  // Exactly what the image copies before `npm ci --omit=dev`: the manifest and the packs.
  const context = path.join(scratch, `image-${database}`);
  mkdirSync(context);
  for (const entry of ["package.json", "vendor"]) cpSync(path.join(project, entry), path.join(context, entry), { recursive: true });
  execFileSync("npm", ["install", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: context, stdio: "ignore" });
  const modules = path.join(context, "node_modules");
  return { database, total: sizeOf(modules), own: sizeOf(path.join(modules, "chargeguard")), groups: groupSizes(modules), forbidden: forbiddenIn(modules, database), runtime: importCost(path.join(context, "node_modules/chargeguard/dist/runtime/index.js"), RUNS) };
}

/** The chargeguard pack the consumer vendored, installed alone as an operator installs it. */
function measureOperator(scratch, vendored) {
  const context = path.join(scratch, "operator");
  mkdirSync(context);
  writeFileSync(path.join(context, "package.json"), `${JSON.stringify({ name: "operator-tools", private: true }, null, 2)}\n`);
  const pack = readdirSync(vendored).find((file) => /^chargeguard-\d.*\.tgz$/.test(file));
  if (!pack) throw new Error(`no chargeguard pack in ${vendored}`);
  execFileSync("npm", ["install", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", path.join(vendored, pack)], { cwd: context, stdio: "ignore" });
  const modules = path.join(context, "node_modules");
  return { total: sizeOf(modules), own: sizeOf(path.join(modules, "chargeguard")), groups: groupSizes(modules), forbidden: forbiddenIn(modules, "postgres") };
}

const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-footprint-"));
try {
  for (const database of CHOICES) {
    const result = measure(scratch, database);
    const goal = database === "postgres" ? ` (goal ${mb(SIZE_GOALS.production)}: ${result.total <= SIZE_GOALS.production ? "met" : "NOT met"})` : "";
    console.log(`--db ${database}: node_modules ${mb(result.total)}${goal}, chargeguard itself ${mb(result.own)} (production install of the generated consumer)`);
    for (const [group, bytes] of result.groups.slice(0, 8)) console.log(`  ${group.padEnd(28)} ${mb(bytes)}`);
    console.log(`  forbidden packages: ${result.forbidden.length === 0 ? "none" : result.forbidden.join(", ")}`);
    console.log(`  import chargeguard/runtime: ${result.runtime.ms.toFixed(0)} ms, ${result.runtime.rss.toFixed(0)} MB resident (median of ${RUNS})`);
  }
  const operator = measureOperator(scratch, path.join(scratch, `consumer-${CHOICES[0]}`, "vendor"));
  console.log(`operator (npm install chargeguard, production): node_modules ${mb(operator.total)}, chargeguard itself ${mb(operator.own)}`);
  for (const [group, bytes] of operator.groups.slice(0, 8)) console.log(`  ${group.padEnd(28)} ${mb(bytes)}`);
  console.log(`  forbidden packages: ${operator.forbidden.length === 0 ? "none" : operator.forbidden.join(", ")}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
