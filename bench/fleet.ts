// `npm run bench:fleet`: N consumer processes (the generated consumer's settings, real PostgreSQL from
// scripts/with-postgres.mjs) drain a backlog against the Stripe emulator with a rate limit R (requests per second
// for the account, nobody told) and a latency L per PaymentIntent. Per (N, R): budget used (billed requests /
// (R x drain seconds)), the share of requests answered 429, the drain time against the ideal (events / R), and
// duplicates, missing and dead-lettered events. `node dist/bench/fleet.js [events per unit of R] [--json]`.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { startServiceBusEmulator } from "../sandbox/servicebus/index.js";
import { startStripeEmulator } from "../sandbox/stripe/index.js";
import type { ReplicaSettings } from "./fleet-replica.js";

export interface FleetRun {
  replicas: number;
  ratePerSecond: number;
  latencyMs: number;
  events: number;
  drainSeconds: number;
  idealSeconds: number;
  budgetUsed: number;
  throttledShare: number;
  duplicates: number;
  missing: number;
  deadLettered: number;
  /** Per second from the send: [requests admitted, requests answered 429]. */
  timeline: [number, number][];
}

const replicaScript = fileURLToPath(new URL("./fleet-replica.js", import.meta.url));

export async function measureFleet(options: { replicas: number; ratePerSecond: number; latencyMs: number; events: number; databaseUrl: string; concurrency?: number }): Promise<FleetRun> {
  const queue = "billing-fleet";
  const serviceBus = await startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: 30_000, maxDeliveryCount: 10, duplicateDetectionWindowMs: 600_000 } } });
  const stripe = await startStripeEmulator();
  const replicas: ChildProcess[] = [];
  const client = new ServiceBusClient(serviceBus.connectionString);
  try {
    const admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0, telemetry: false });
    const customers = await Promise.all(Array.from({ length: options.events }, () => admin.customers.create({})));
    stripe.faults.inject({ method: "POST", path: "/v1/payment_intents", action: "latency", ms: options.latencyMs });
    stripe.degradation.rateLimit({ global: { perSecond: options.ratePerSecond, burst: options.ratePerSecond } });
    const settings: ReplicaSettings = {
      connectionString: serviceBus.connectionString,
      queue,
      stripeApiBase: stripe.apiBase,
      databaseUrl: options.databaseUrl,
      maxConcurrentCalls: options.concurrency ?? 8,
    };
    await Promise.all(Array.from({ length: options.replicas }, () => startReplica(settings, replicas)));
    const sender = client.createSender(queue);
    const started = performance.now();
    const bodies = customers.map((customer, i) => ({
      body: { customerId: `acct-${i}`, stripeCustomerId: customer.id, paymentMethodId: "pm_card_visa", billingPeriod: "2026-11", amountCents: 1_000 + i, currency: "usd" },
      messageId: `fleet-${i}`,
    }));
    for (let i = 0; i < bodies.length; i += 100) await sender.sendMessages(bodies.slice(i, i + 100));
    await sender.close();
    const before = stripe.degradation.stats;
    const charged = () => customers.filter((customer) => stripe.ledger.paymentIntents(customer.id).some((pi) => pi.status === "succeeded")).length;
    const deadline = performance.now() + Math.max(120_000, (options.events / options.ratePerSecond) * 4_000);
    const timeline: [number, number][] = [];
    let last = before;
    let nextSecond = started + 1_000;
    const sample = () => {
      const now = stripe.degradation.stats;
      timeline.push([now.admitted - last.admitted, now.throttled - last.throttled]);
      last = now;
      nextSecond += 1_000;
    };
    while (charged() < options.events && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (performance.now() >= nextSecond) sample();
    }
    sample();
    const drainSeconds = (performance.now() - started) / 1000;
    const stats = stripe.degradation.stats;
    const throttled = stats.throttled - before.throttled;
    const admitted = stats.admitted - before.admitted;
    const counts = serviceBus.counts(queue);
    return {
      replicas: options.replicas,
      ratePerSecond: options.ratePerSecond,
      latencyMs: options.latencyMs,
      events: options.events,
      drainSeconds,
      idealSeconds: options.events / options.ratePerSecond,
      budgetUsed: charged() / (options.ratePerSecond * drainSeconds),
      throttledShare: throttled / Math.max(1, throttled + admitted),
      duplicates: stripe.ledger.duplicateCharges().length,
      missing: options.events - charged(),
      deadLettered: counts.deadLettered,
      timeline,
    };
  } finally {
    await Promise.all(replicas.map((replica) => stopReplica(replica)));
    await client.close();
    await serviceBus.stop();
    await stripe.stop();
  }
}

function startReplica(settings: ReplicaSettings, replicas: ChildProcess[]): Promise<void> {
  const replica = fork(replicaScript, [JSON.stringify(settings)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  replicas.push(replica);
  return new Promise((resolve, reject) => {
    replica.once("message", () => resolve());
    replica.once("exit", (code) => reject(new Error(`a replica exited with ${String(code)} before it was ready`)));
  });
}

function stopReplica(replica: ChildProcess): Promise<void> {
  if (replica.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => replica.kill("SIGKILL"), 15_000);
    replica.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    replica.send({ stop: true });
  });
}

/** (N, R) measured by default; `N:R` arguments choose others. The last row: more replicas, a budget below their concurrency. */
const defaultShapes = [
  { replicas: 1, ratePerSecond: 5 },
  { replicas: 3, ratePerSecond: 10 },
  { replicas: 3, ratePerSecond: 25 },
  { replicas: 6, ratePerSecond: 25 },
  { replicas: 6, ratePerSecond: 10 },
];

async function main(): Promise<void> {
  const databaseUrl = process.env["TEST_DATABASE_URL"];
  if (!databaseUrl) {
    console.error("bench:fleet needs PostgreSQL: run it as `npm run bench:fleet` (scripts/with-postgres.mjs sets TEST_DATABASE_URL)");
    process.exit(2);
  }
  const perRate = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 12);
  const json = process.argv.includes("--json");
  const chosen = process.argv.filter((arg) => /^\d+:\d+$/.test(arg)).map((arg) => arg.split(":").map(Number) as [number, number]);
  const shapes = chosen.length > 0 ? chosen.map(([replicas, ratePerSecond]) => ({ replicas, ratePerSecond })) : defaultShapes;
  const runs: FleetRun[] = [];
  for (const shape of shapes) {
    const run = await measureFleet({ ...shape, latencyMs: 50, events: perRate * shape.ratePerSecond, databaseUrl: await freshDatabase(databaseUrl) });
    runs.push(run);
    if (!json) console.log(describeRun(run));
    if (!json && process.argv.includes("--timeline")) console.log(`  per second [admitted, 429]: ${run.timeline.map(([a, t]) => `${a}/${t}`).join(" ")}`);
  }
  if (json) console.log(JSON.stringify(runs, null, 2));
}

/** Each run on its own database: the fleet's learned rate must not carry over. */
async function freshDatabase(serverUrl: string): Promise<string> {
  const { default: pg } = await import("pg");
  const name = `chargeguard_fleet_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function describeRun(run: FleetRun): string {
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  return (
    `N=${run.replicas} R=${run.ratePerSecond}/s L=${run.latencyMs} ms, ${run.events} events: drained in ${run.drainSeconds.toFixed(1)} s ` +
    `(ideal ${run.idealSeconds.toFixed(1)} s), budget used ${pct(run.budgetUsed)}, 429s ${pct(run.throttledShare)}, ` +
    `duplicates ${run.duplicates}, missing ${run.missing}, dead-lettered ${run.deadLettered}`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
