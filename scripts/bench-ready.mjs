#!/usr/bin/env node
// npm run bench:ready: how long a generated consumer takes from process start to its first 200 on /ready (the probe
// Container Apps gates traffic and KEDA's scale-out on), and its resident memory then. The built example consumer
// (dist/examples/generated-consumer, what `chargeguard new consumer` writes) runs against the sandbox's Service Bus
// and Stripe emulators on 127.0.0.1, on three databases:
//   postgres       DATABASE_URL: the throw-away server scripts/with-postgres.mjs starts (TEST_DATABASE_URL)
//   pglite-reused  the embedded database in a directory an earlier start created (a restarted replica)
//   pglite-new     the embedded database in an empty directory (the first start)
// Median of BENCH_RUNS starts each (default 5), with min and max: a start is a fresh process, as a replica's is.
// Run through `npm run bench:ready` (the build, then with-postgres). Options: BENCH_RUNS, BENCH_DB (comma list), BENCH_AGAINST.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./footprint/import-cost.mjs";
import { freePort } from "./free-port.mjs";

const REPOSITORY = fileURLToPath(new URL("..", import.meta.url));
// BENCH_AGAINST: other built checkouts (comma list, e.g. an older commit's worktree) started in turn with this one, so
// their figures stand side by side from one run.
const CHECKOUTS = [REPOSITORY, ...(process.env.BENCH_AGAINST ?? "").split(",").map((c) => c.trim()).filter(Boolean).map((c) => path.resolve(c))];
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHOICES = (process.env.BENCH_DB ?? "postgres,pglite-reused,pglite-new").split(",").map((c) => c.trim()).filter(Boolean);
const READY_WITHIN_MS = 120_000;
const QUEUE = "usage-billing";
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`BENCH_RUNS must be a whole number from 1, got ${process.env.BENCH_RUNS}`);
if (CHOICES.includes("postgres") && !process.env.TEST_DATABASE_URL) throw new Error("postgres needs TEST_DATABASE_URL: run through `npm run bench:ready` (scripts/with-postgres.mjs)");

for (const checkout of CHECKOUTS) {
  if (!existsSync(path.join(checkout, "dist/examples/generated-consumer/src/main.js"))) throw new Error(`${checkout} is not built: run npm run build there first`);
}
const { startServiceBusEmulator, startStripeEmulator } = await import(path.join(REPOSITORY, "dist/sandbox/index.js"));

/** Resident memory of a process in MB, from /proc (Linux); undefined elsewhere. */
function residentMb(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** One start: spawn the consumer, poll /ready every 10 ms, stop it with SIGTERM once ready. */
async function startOnce(directory, env) {
  const healthPort = await freePort();
  const started = performance.now();
  const consumer = spawn(process.execPath, [path.join(directory, "main.js")], { cwd: directory, env: { PATH: process.env.PATH, ...env, HEALTH_PORT: String(healthPort) } });
  let output = "";
  consumer.stdout.on("data", (chunk) => (output += chunk));
  consumer.stderr.on("data", (chunk) => (output += chunk));
  consumer.on("error", (error) => (output += `\n${error.message}`));
  try {
    for (;;) {
      const response = await fetch(`http://127.0.0.1:${healthPort}/ready`).catch(() => undefined);
      if (response?.status === 200) return { ms: performance.now() - started, rss: residentMb(consumer.pid) };
      if (consumer.exitCode !== null || performance.now() - started > READY_WITHIN_MS) throw new Error(`the consumer was never ready (exit ${consumer.exitCode}); its output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    if (consumer.exitCode === null) {
      consumer.kill("SIGTERM");
      await new Promise((resolve) => consumer.once("exit", resolve));
    }
  }
}

const summary = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

const serviceBus = await startServiceBusEmulator({ queues: { [QUEUE]: {} } });
const stripe = await startStripeEmulator();
// Inside each checkout's dist/, so the copies resolve `chargeguard` (that checkout) from its node_modules.
const scratches = CHECKOUTS.map((checkout) => mkdtempSync(path.join(checkout, "dist", ".bench-ready-")));
try {
  const common = { SERVICEBUS_CONNECTION_STRING: serviceBus.connectionString, SERVICEBUS_QUEUE: QUEUE, STRIPE_API_KEY: "rk_test_sandbox", STRIPE_API_BASE: stripe.apiBase };
  for (const choice of CHOICES) {
    const samples = CHECKOUTS.map(() => []);
    for (let run = 0; run <= RUNS; run += 1) {
      // The checkouts take turns, run by run, so a change in the machine's load falls on each alike.
      for (const [index, checkout] of CHECKOUTS.entries()) {
        // A fresh copy of the consumer per start keeps pglite-new's directory empty; pglite-reused shares one copy.
        const directory = path.join(scratches[index], choice === "pglite-reused" ? choice : `${choice}-${run}`);
        if (choice !== "pglite-reused" || run === 0) cpSync(path.join(checkout, "dist/examples/generated-consumer/src"), directory, { recursive: true });
        const env = choice === "postgres" ? { ...common, DATABASE_URL: process.env.TEST_DATABASE_URL } : common;
        const sample = await startOnce(directory, env);
        // Run 0 warms the disk cache (and, for pglite-reused, creates the database a restart finds): not counted.
        if (run > 0) samples[index].push(sample);
      }
    }
    const medians = samples.map((each) => median(each.map((s) => s.ms)));
    for (const [index, checkout] of CHECKOUTS.entries()) {
      const time = summary(samples[index].map((s) => s.ms));
      const memory = summary(samples[index].map((s) => s.rss ?? Number.NaN));
      const ratio = index === 0 ? "" : `; ${path.basename(REPOSITORY)} takes ${(medians[0] / medians[index]).toFixed(2)} of this time`;
      console.log(`${choice.padEnd(14)} ${path.basename(checkout).padEnd(12)} /ready ${(time.median / 1000).toFixed(2)} s median (${(time.min / 1000).toFixed(2)}-${(time.max / 1000).toFixed(2)} s), ${memory.median.toFixed(0)} MB resident (median of ${RUNS})${ratio}`);
    }
  }
} finally {
  await serviceBus.stop();
  await stripe.stop();
  for (const scratch of scratches) rmSync(scratch, { recursive: true, force: true });
}
