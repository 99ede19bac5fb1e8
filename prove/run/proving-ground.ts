// The proving ground: the same seeded workload and fault plan against every contender (each with its own fresh
// emulators and database), one after another or `parallel` at a time in worker threads, and the results in one place.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ContenderJob, ParentMessage, WorkerMessage } from "../contender/contender-worker.js";
import { contenders as allContenders, selectContenders, type Contender } from "../contender/contenders.js";
import { FreshDatabases, type DatabaseTemplate } from "../databases/fresh-databases.js";
import { runInLanes } from "./lanes.js";
import { OverallProgress } from "./overall-progress.js";
import type { ContenderResult, ProvingGroundOptions, ProvingGroundResult } from "./run-types.js";
import { runContender } from "../contender/run-contender.js";
import { prepareRunInputs, type RunInputs } from "./run-inputs.js";

export type { ProvingGroundOptions } from "./run-types.js";

/**
 * `flowEvents`: the other flows' contenders run 150 events by default (1,000 with --full). An invoice takes four Stripe
 * calls and five guard writes, so at 10,000 events its fleet alone would outlast the rest of the run (and its timeout).
 */
export { provingGroundDefaults, provingGroundFull } from "./run-scale.js";

export { provingGroundLimits } from "./run-inputs.js";

export async function runProvingGround(options: ProvingGroundOptions = {}): Promise<ProvingGroundResult> {
  const inputs = prepareRunInputs(options);
  const chosen: Contender[] = selectContenders(allContenders(), options.only);
  const started = Date.now();
  const parallel = workerFile ? Math.max(1, Math.min(options.parallel ?? 1, chosen.length)) : 1;
  const progress = new OverallProgress(chosen.length, options.onProgress);
  const databases = new FreshDatabases();
  // Longest first, so no lane is left running the longest contender alone at the end: generated consumers take the
  // longest (the guard's leases, the 25 h phase's re-sends, the reconciler). Results stay in the contenders' order.
  const results = await runInLanes(chosen, parallel, startRank, (contender) =>
    progress.track(contender.name, (onProgress) => runOneContender(contender, { inputs, parallel, databases, onProgress, log: options.log })),
  );
  const { seed, events, flowEvents, replicas, faults } = inputs;
  return { seed, events, flowEvents, replicas, faults, contenders: results, wallMs: Date.now() - started };
}

interface OneContenderRun {
  inputs: RunInputs;
  parallel: number;
  databases: FreshDatabases;
  onProgress(done: number): void;
  log: ((line: string) => void) | undefined;
}

/** One contender, in a worker thread when contenders run in parallel, else here; one that cannot run gets a row. */
async function runOneContender(contender: Contender, { inputs, parallel, databases, onProgress, log }: OneContenderRun): Promise<ContenderResult> {
  const { workload, plan, settings, events } = inputs.runFor(contender);
  try {
    if (parallel > 1 && workerFile) {
      const job: ContenderJob = { name: contender.name, events, seed: inputs.seed, faults: inputs.faults, replicas: inputs.replicas, settings, verbose: Boolean(log) };
      return await runInWorker(workerFile, job, databases.template(), onProgress, log);
    }
    return await runContender({ contender, workload, plan, replicas: inputs.replicas, settings, databases, onProgress, ...(log ? { log } : {}) });
  } catch (error) {
    log?.(`${contender.name}: could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return failedToRun(contender, events, error);
  }
}

function startRank(contender: Contender): number {
  return contender.kind === "generated" ? 0 : 1;
}

/** The worker entry point, when this module runs as built JavaScript (a worker thread cannot load TypeScript). */
const workerFile = ((): string | undefined => {
  const url = new URL("../contender/contender-worker.js", import.meta.url);
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
export function failedToRun(contender: Contender, events: number, error: unknown): ContenderResult {
  const metrics = {
    events,
    deliveries: 0,
    paymentIntents: 0,
    charges: 0,
    duplicateCharges: 0,
    lostBillings: 0,
    unsettledBillings: 0,
    overCapCents: 0,
    repeatedDeclines: 0,
    deadLettered: {},
    malformedEvents: 0,
    malformedDeadLettered: 0,
    malformedCharged: 0,
    unattributedCharges: 0,
    validDeadLettered: 0,
    eventsCharged: 0,
    eventsDeclined: 0,
    wallMs: 0,
  };
  const message = error instanceof Error ? error.message : String(error);
  return { name: contender.name, kind: contender.kind, flow: contender.flow, metrics, verdict: `NOT RUN: ${message}`, error: message };
}
