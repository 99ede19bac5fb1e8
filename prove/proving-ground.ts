// The proving ground: the same seeded workload and fault plan against every contender (each with its own fresh
// emulators and database), one after another or `parallel` at a time in worker threads, and the results in one place.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ContenderJob, ParentMessage, WorkerMessage } from "./contender-worker.js";
import { contenders as allContenders, selectContenders, type Contender } from "./contenders.js";
import { FreshDatabases, type DatabaseTemplate } from "./fresh-databases.js";
import { faultNames, planFaults, type FaultName } from "./faults.js";
import type { ContenderResult, ProvingGroundResult } from "./results.js";
import { runContender } from "./run-contender.js";
import { harnessSettings, type HarnessSettings } from "./settings.js";
import { generateWorkload } from "./workload.js";
import { provingGroundDefaults } from "./run-scale.js";

export interface ProvingGroundOptions {
  events?: number;
  /**
   * Events for the contenders of the other flows (charge, invoice, meter-event): at most `events`. They run their
   * own workload of this size from the same seed, so the default run keeps them at a fraction of its cost.
   */
  flowEvents?: number;
  replicas?: number;
  seed?: number;
  faults?: readonly FaultName[];
  /** Contender names; absent: all. */
  only?: readonly string[];
  settings?: Partial<HarnessSettings>;
  /** Contenders run at once, each in a worker thread (built JavaScript only; from TypeScript sources: one at a time). */
  parallel?: number;
  onProgress?(update: { contender: string; index: number; count: number; done: number }): void;
  log?(line: string): void;
}

/**
 * `flowEvents`: the other flows' contenders run 1,000 events by default. An invoice takes four Stripe calls and five
 * guard writes, so at 10,000 events its fleet alone would outlast the rest of the run (and its timeout).
 */
export { provingGroundDefaults, provingGroundFull } from "./run-scale.js";

/**
 * The largest run the harness takes: the workload and every observed delivery are held in memory, and each replica
 * holds AMQP links, so past these a run exhausts the machine instead of proving anything.
 */
export const provingGroundLimits = { events: 1_000_000, flowEvents: 1_000_000, replicas: 64, parallel: 32 } as const;

export async function runProvingGround(options: ProvingGroundOptions = {}): Promise<ProvingGroundResult> {
  const events = options.events ?? provingGroundDefaults.events;
  const replicas = options.replicas ?? provingGroundDefaults.replicas;
  const flowEvents = Math.min(events, options.flowEvents ?? provingGroundDefaults.flowEvents);
  for (const [name, value] of [["events", events], ["flowEvents", options.flowEvents ?? flowEvents], ["replicas", replicas], ["parallel", options.parallel ?? 1]] as const) {
    const max = provingGroundLimits[name];
    if (!Number.isSafeInteger(value) || value < 1 || value > max) throw new RangeError(`${name} must be a whole number from 1 to ${max}, got ${value}`);
  }
  const seed = options.seed ?? provingGroundDefaults.seed;
  const faults = options.faults ?? faultNames;
  // The PaymentIntent contenders run `events`; the other flows' contenders `flowEvents` (their own workload and plan).
  const runs = new Map(
    [...new Set([events, flowEvents])].map((count) => {
      const workload = generateWorkload({ events: count, seed });
      return [count, { events: count, workload, plan: planFaults(workload, { faults, seed }), settings: { ...harnessSettings(count), ...options.settings } }];
    }),
  );
  const runFor = (contender: Contender) => runs.get(contender.flow === "payment-intent" ? events : flowEvents)!;
  const { plan } = runFor({ flow: "payment-intent" } as Contender);
  const chosen: Contender[] = selectContenders(allContenders(), options.only);

  const started = Date.now();
  const parallel = workerFile ? Math.max(1, Math.min(options.parallel ?? 1, chosen.length)) : 1;
  // Progress over all contenders: finished ones count 1, running ones their share done.
  const running = new Map<string, number>();
  let finished = 0;
  const report = () =>
    options.onProgress?.({
      contender: [...running.keys()].join(", "),
      index: finished,
      count: chosen.length,
      done: [...running.values()].reduce((sum, done) => sum + done, 0),
    });

  const databases = new FreshDatabases();
  const runOne = async (contender: Contender): Promise<ContenderResult> => {
    running.set(contender.name, 0);
    report();
    const progress = (done: number) => {
      running.set(contender.name, done);
      report();
    };
    try {
      if (parallel > 1 && workerFile) {
        const job: ContenderJob = {
          name: contender.name,
          events: runFor(contender).events,
          seed,
          faults: plan.faults,
          replicas,
          settings: runFor(contender).settings,
          verbose: Boolean(options.log),
        };
        return await runInWorker(workerFile, job, databases.template(), progress, options.log);
      }
      const { workload, plan: contenderPlan, settings } = runFor(contender);
      return await runContender({
        contender,
        workload,
        plan: contenderPlan,
        replicas,
        settings,
        databases,
        onProgress: progress,
        ...(options.log ? { log: options.log } : {}),
      });
    } catch (error) {
      options.log?.(`${contender.name}: could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return failedToRun(contender, runFor(contender).events, error);
    } finally {
      running.delete(contender.name);
      finished++;
      report();
    }
  };

  const results: ContenderResult[] = new Array(chosen.length);
  // Longest first, so no lane is left running the longest contender alone at the end: generated consumers take the
  // longest (the guard's leases, the 25 h phase's re-sends, the reconciler). Results stay in the contenders' order.
  const order = chosen.map((_, index) => index).sort((a, b) => startRank(chosen[a] as Contender) - startRank(chosen[b] as Contender));
  let next = 0;
  const lane = async () => {
    while (next < order.length) {
      const index = order[next++] as number;
      results[index] = await runOne(chosen[index] as Contender);
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return { seed, events, flowEvents, replicas, faults: plan.faults, contenders: results, wallMs: Date.now() - started };
}

function startRank(contender: Contender): number {
  return contender.kind === "generated" ? 0 : 1;
}

/** The worker entry point, when this module runs as built JavaScript (a worker thread cannot load TypeScript). */
const workerFile = ((): string | undefined => {
  const url = new URL("./contender-worker.js", import.meta.url);
  return import.meta.url.endsWith(".js") && existsSync(fileURLToPath(url)) ? fileURLToPath(url) : undefined;
})();

function runInWorker(
  file: string,
  job: ContenderJob,
  template: Promise<DatabaseTemplate>,
  onProgress: (done: number) => void,
  log: ((line: string) => void) | undefined,
): Promise<ContenderResult> {
  const worker = new Worker(file, { workerData: job });
  const post = (message: ParentMessage) => worker.postMessage(message);
  template.then(
    (ready) => post({ type: "template", template: ready }),
    (error: unknown) => post({ type: "template-error", message: error instanceof Error ? error.message : String(error) }),
  );
  return new Promise<ContenderResult>((resolve, reject) => {
    worker.on("message", (message: WorkerMessage) => {
      if (message.type === "progress") onProgress(message.done);
      else if (message.type === "log") log?.(message.line);
      else if (message.type === "result") resolve(message.result);
      else reject(new Error(message.message));
    });
    worker.on("error", reject);
    worker.on("exit", (code) => reject(new Error(`the worker for ${job.name} exited (${code}) before its result`)));
  }).finally(() => void worker.terminate());
}

/** A contender the harness could not run at all still gets a row, with the reason, instead of ending the run. */
function failedToRun(contender: Contender, events: number, error: unknown): ContenderResult {
  const metrics = {
    events,
    deliveries: 0,
    paymentIntents: 0,
    charges: 0,
    duplicateCharges: 0,
    lostBillings: 0,
    overCapCents: 0,
    repeatedDeclines: 0,
    deadLettered: {},
    malformedEvents: 0,
    malformedDeadLettered: 0,
    malformedCharged: 0,
    unattributedCharges: 0,
    eventsCharged: 0,
    eventsDeclined: 0,
    wallMs: 0,
  };
  const message = error instanceof Error ? error.message : String(error);
  return { name: contender.name, kind: contender.kind, flow: contender.flow, metrics, verdict: `NOT RUN: ${message}`, error: message };
}
