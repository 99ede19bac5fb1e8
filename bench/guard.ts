// What the billing guard costs. `npm run bench:guard` (PostgreSQL started by scripts/with-postgres.mjs, which sets
// TEST_DATABASE_URL); `node dist/bench/guard.js [seconds per phase] [end-to-end events] [rounds] [--json]
// [--sandbox-in-process]` (the emulators in the consumer's process instead of a child process).
//  1. Guard billings per second (`Guard.run`: claim + markDone, two commits each, batched with the other workers') on
//     embedded PGlite and
//     on the PostgreSQL server, with 1 and 8 workers, beside the same server's raw single-row INSERT commit rate
//     measured in the same run (the physical limit: one fsync'd commit), as ratios.
//  2. The billing consumer end to end, with and without the guard, Stripe answering in 50 ms (bench/consumer-throughput.ts),
//     alternating in rounds, medians; beside it the floor: the guard replaced by two durable single-row INSERTs. Two
//     shapes: pipelined (32 messages in flight, 16 Stripe calls) and every message holding a Stripe slot (16 / 16).
//     Also the guard-on-PGlite consumer with telemetry on (the OpenTelemetry SDK with exporters, the guard's gauges
//     observed) over the same consumer with telemetry off: the telemetry's overhead (target: at most 3%).
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { Guard, type GuardRunInput } from "../runtime/index.js";
import { measureConsumerThroughput, type ConsumerThroughput } from "./consumer-throughput.js";

export interface RateRow {
  name: string;
  operations: number;
  seconds: number;
  perSecond: number;
  /** perSecond divided by the raw insert rate it is compared with. */
  ratio?: number;
}

interface Phase {
  seconds: number;
}

/** Runs `workers` loops of `operation` until the phase's time is up; returns operations per second. */
async function rate(name: string, phase: Phase, workers: number, operation: (worker: number, n: number) => Promise<void>): Promise<RateRow> {
  const deadline = performance.now() + phase.seconds * 1000;
  let operations = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let n = 0; performance.now() < deadline; n++) {
        await operation(worker, n);
        operations++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { name, operations, seconds, perSecond: operations / seconds };
}

function billing(run: string, worker: number, n: number, periods: number): GuardRunInput {
  const customerId = `bench-${run}-${worker}-${n}`;
  const billingPeriod = `2026-10-p${(worker + n) % periods}`;
  const amountCents = 1_000 + (n % 100);
  return {
    scope: "billing",
    key: { customerId, billingPeriod },
    flow: "payment-intent",
    spend: { period: billingPeriod, currency: "usd", amount: amountCents },
    payload: {
      amount: amountCents,
      currency: "usd",
      customer: "cus_bench",
      payment_method: "pm_card_visa",
      confirm: true,
      off_session: true,
      metadata: { customer_id: customerId, billing_period: billingPeriod },
    },
    owner: `worker-${worker}`,
  };
}

/** One billing through the guard as a consumer does it (Stripe left out: this measures the guard alone). */
async function guardedBilling(guard: Guard, input: GuardRunInput): Promise<void> {
  const outcome = await guard.run(input, async () => ({ status: "done", objectId: `pi_${String(input.key.customerId)}` }));
  if (outcome.kind !== "done") throw new Error(`bench: expected a billing done, got ${outcome.kind}`);
}

const rawTable = `CREATE TABLE IF NOT EXISTS bench_raw_insert (id text PRIMARY KEY, amount_cents bigint NOT NULL, created_at timestamptz NOT NULL)`;

async function measurePglite(phase: Phase): Promise<RateRow[]> {
  const db = await PGlite.create();
  try {
    await db.query(rawTable);
    const raw = await rate("PGlite (in memory): raw single-row INSERT", phase, 1, async () => {
      await db.query("INSERT INTO bench_raw_insert VALUES ($1, $2, $3)", [randomUUID(), 1200, new Date()]);
    });
    const guard = await Guard.open({ pglite: db, periodCapCents: Number.MAX_SAFE_INTEGER });
    const run = randomUUID().slice(0, 8);
    const guarded = await rate("PGlite (in memory): guard billing", phase, 1, (worker, n) =>
      guardedBilling(guard, billing(run, worker, n, 1)),
    );
    await guard.close();
    return [raw, { ...guarded, ratio: guarded.perSecond / raw.perSecond }];
  } finally {
    await db.close();
  }
}

async function measurePostgres(databaseUrl: string, phase: Phase): Promise<RateRow[]> {
  const rows: RateRow[] = [];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  await pool.query(rawTable);
  const rawRates = new Map<number, number>();
  for (const workers of [1, 8]) {
    const raw = await rate(`PostgreSQL: raw single-row INSERT, ${workers} client(s)`, phase, workers, async () => {
      await pool.query("INSERT INTO bench_raw_insert VALUES ($1, $2, $3)", [randomUUID(), 1200, new Date()]);
    });
    rawRates.set(workers, raw.perSecond);
    rows.push(raw);
  }
  await pool.end();

  const guard = await Guard.open({ databaseUrl, poolSize: 8, periodCapCents: Number.MAX_SAFE_INTEGER });
  try {
    const cases = [
      { workers: 1, periods: 1, label: "1 worker" },
      { workers: 8, periods: 1, label: "8 workers, one billing period" },
      { workers: 8, periods: 8, label: "8 workers, 8 billing periods" },
    ];
    for (const { workers, periods, label } of cases) {
      const run = randomUUID().slice(0, 8);
      const guarded = await rate(`PostgreSQL: guard billing, ${label}`, phase, workers, (worker, n) =>
        guardedBilling(guard, billing(run, worker, n, periods)),
      );
      rows.push({ ...guarded, ratio: guarded.perSecond / (rawRates.get(workers) as number) });
    }
  } finally {
    await guard.close();
  }
  return rows;
}

export interface EndToEndRow {
  name: string;
  /** Messages in flight and Stripe calls at a time, e.g. "32 / 16". */
  shape: string;
  events: number;
  /** Median over the rounds. */
  seconds: number;
  perSecond: number;
  /** Each round's rate, in round order. */
  roundRates: number[];
  /** Median rate over the median rate of the no-guard consumer of the same shape. */
  ratio?: number;
  /** Over the no-guard consumer of the same shape, per round (measured in the same round). */
  roundRatios?: number[];
  /** Mean milliseconds per guard step the handler waits for, median over the rounds. */
  guardStepMs?: Record<string, number>;
  /** Consumer-process CPU milliseconds per event, median over the rounds. */
  cpuMsPerEvent: number;
  /** Telemetry on (the SDK with exporters) over the same consumer with telemetry off (median rates; target >= 0.97). */
  telemetryRatio?: number;
  /** The same for CPU per event: what telemetry adds to the consumer's work (target <= 1.03). */
  telemetryCpuRatio?: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * Two consumer shapes, each with and without the guard. Pipelined (the way to deploy it): twice as many messages in
 * flight as Stripe calls, so claims, records and settlements overlap other messages' Stripe calls. Every message
 * holding a Stripe slot (messages in flight = Stripe calls): each guard round trip adds to the time a slot is held,
 * the guard's whole latency.
 */
const shapes = [
  { label: "32 / 16", concurrency: 32, stripeConcurrency: 16 },
  { label: "16 / 16", concurrency: 16, stripeConcurrency: 16 },
];

/**
 * The consumer with and without the guard, side by side: every round measures each variant once, in an order that
 * rotates from round to round (so neither always runs first or last while the load drifts); medians over rounds.
 */
async function measureEndToEnd(events: number, rounds: number, databaseUrl: string | undefined, sandboxInProcess: boolean): Promise<EndToEndRow[]> {
  const variants = shapes.flatMap(({ label, concurrency, stripeConcurrency }) => {
    const shape = { concurrency, stripeConcurrency, sandboxInProcess };
    return [
      { shape: label, name: "billing consumer, no guard (pass-through port)", baseline: true, options: { ...shape, withGuard: false } },
      { shape: label, name: "billing consumer, guard on PGlite", baseline: false, options: { ...shape, withGuard: true } },
      {
        shape: label,
        name: "billing consumer, guard on PGlite, telemetry on (SDK + exporters)",
        baseline: false,
        telemetryOf: "billing consumer, guard on PGlite",
        options: { ...shape, withGuard: true, telemetry: true },
      },
      ...(databaseUrl
        ? [
            { shape: label, name: "billing consumer, guard on PostgreSQL", baseline: false, options: { ...shape, withGuard: true, databaseUrl } },
            {
              shape: label,
              name: "floor: no guard, 2 fsync'd INSERTs per message instead",
              baseline: false,
              options: { ...shape, withGuard: false, twoInserts: true, databaseUrl },
            },
          ]
        : []),
    ];
  });
  const results = variants.map(() => [] as ConsumerThroughput[]);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < variants.length; i++) {
      const v = (i + round) % variants.length;
      const variant = variants[v] as (typeof variants)[number];
      (results[v] as ConsumerThroughput[]).push(await measureConsumerThroughput({ events, stripeLatencyMs: 50, ...variant.options }));
    }
  }
  const ratesOf = (v: number) => (results[v] as ConsumerThroughput[]).map((r) => r.perSecond);
  const cpuOf = (v: number) => median((results[v] as ConsumerThroughput[]).map((r) => r.cpuMsPerEvent));
  return variants.map((variant, v) => {
    const runs = results[v] as ConsumerThroughput[];
    const rates = ratesOf(v);
    const perSecond = median(rates);
    const steps = [...new Set(runs.flatMap((r) => Object.keys(r.guardStepMs ?? {})))];
    const baseline = ratesOf(variants.findIndex((other) => other.baseline && other.shape === variant.shape));
    // Telemetry on is compared with the same consumer with telemetry off, round by round.
    const offIndex = "telemetryOf" in variant ? variants.findIndex((other) => other.name === variant.telemetryOf && other.shape === variant.shape) : -1;
    const telemetryOff = offIndex >= 0 ? ratesOf(offIndex) : undefined;
    return {
      name: variant.name,
      shape: variant.shape,
      events,
      seconds: median(runs.map((r) => r.seconds)),
      perSecond,
      roundRates: rates,
      cpuMsPerEvent: cpuOf(v),
      ...(variant.baseline
        ? {}
        : {
            ratio: perSecond / median(baseline),
            roundRatios: rates.map((rate, round) => rate / (baseline[round] as number)),
            ...(steps.length > 0 ? { guardStepMs: Object.fromEntries(steps.map((step) => [step, median(runs.map((r) => r.guardStepMs?.[step] ?? 0))])) } : {}),
            ...(telemetryOff ? { telemetryRatio: perSecond / median(telemetryOff), telemetryCpuRatio: cpuOf(v) / cpuOf(offIndex) } : {}),
          }),
    };
  });
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

const percent = (ratio: number | undefined) => (ratio === undefined ? "" : `${(ratio * 100).toFixed(0)}%`);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const json = process.argv.includes("--json");
  const sandboxInProcess = process.argv.includes("--sandbox-in-process");
  const loadBefore = loadavg().map((n) => n.toFixed(2));
  const phase = { seconds: Number(args[0] ?? 5) };
  const events = Number(args[1] ?? 1_000);
  const rounds = Number(args[2] ?? 3);
  if (!(phase.seconds > 0) || !Number.isSafeInteger(events) || events < 1 || !Number.isSafeInteger(rounds) || rounds < 1) {
    console.error("usage: node dist/bench/guard.js [seconds per phase > 0] [end-to-end events >= 1] [rounds >= 1] [--json]");
    process.exit(2);
  }
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) console.warn("bench:guard: TEST_DATABASE_URL not set (run under scripts/with-postgres.mjs): PostgreSQL rows left out");
  const guardRows = [...(await measurePglite(phase)), ...(databaseUrl ? await measurePostgres(databaseUrl, phase) : [])];
  const endToEnd = await measureEndToEnd(events, rounds, databaseUrl, sandboxInProcess);
  // Shared machines make absolute rates move with the load; the ratios, measured in the same run, move less.
  const load = loadavg().map((n) => n.toFixed(2));
  if (json) {
    console.log(JSON.stringify({ loadAverageBefore: loadBefore, loadAverage: load, sandboxInProcess, guard: guardRows, endToEnd }, null, 2));
  } else {
    console.log(`load average before ${loadBefore.join(" ")}, after ${load.join(" ")}; emulators ${sandboxInProcess ? "in the consumer's process" : "in a child process"}\n`);
    console.log(
      table(
        ["Guard (Guard.run: claim + markDone)", "billings", "seconds", "rate", "of raw INSERT rate"],
        guardRows.map((r) => [r.name, String(r.operations), r.seconds.toFixed(2), `${Math.round(r.perSecond)}/s`, percent(r.ratio)]),
      ),
    );
    console.log();
    console.log(
      table(
        [`Consumer end to end (Stripe 50 ms), median of ${rounds}`, "messages / Stripe calls", "events", "seconds", "rate", "of no-guard rate", "per round", "guard step ms", "CPU ms / event", "telemetry-off rate, CPU"],
        endToEnd.map((r) => [
          r.name,
          r.shape,
          String(r.events),
          r.seconds.toFixed(2),
          `${r.perSecond.toFixed(1)}/s`,
          percent(r.ratio),
          r.roundRatios ? r.roundRatios.map(percent).join(" ") : r.roundRates.map((rate) => `${rate.toFixed(0)}/s`).join(" "),
          Object.entries(r.guardStepMs ?? {}).map(([step, ms]) => `${step} ${ms.toFixed(1)}`).join(", "),
          r.cpuMsPerEvent.toFixed(2),
          r.telemetryRatio === undefined ? "" : `${(r.telemetryRatio * 100).toFixed(1)}%, ${((r.telemetryCpuRatio ?? 0) * 100).toFixed(1)}%`,
        ]),
      ),
    );
  }
}
