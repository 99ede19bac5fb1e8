// One contender in a worker thread, so contenders run side by side on a machine with more than one core. The worker
// rebuilds the same workload and fault plan from the seed (both are pure functions of it), runs the contender and
// posts its result; the parent terminates it then, since a killed replica's SDK clients never let a thread end.
import { parentPort, workerData } from "node:worker_threads";
import { contenders, selectContenders } from "./contenders.js";
import { planFaults, type FaultName } from "../faults/faults.js";
import { FreshDatabases, type DatabaseTemplate } from "../databases/fresh-databases.js";
import type { ContenderResult } from "../run/run-types.js";
import { runContender } from "./run-contender.js";
import type { HarnessSettings } from "../run/settings.js";
import { generateWorkload } from "../workload/workload.js";

export interface ContenderJob {
  name: string;
  events: number;
  seed: number;
  faults: readonly FaultName[];
  replicas: number;
  settings: HarnessSettings;
  verbose: boolean;
}

/**
 * What the parent posts to a worker: the database template, built once by the parent (so the workers skip compiling
 * PGlite and running initdb) and sent when it is ready, so the first workers set up their emulators, customers and
 * queue meanwhile instead of waiting for it to start.
 */
export type ParentMessage = { type: "template"; template: DatabaseTemplate } | { type: "template-error"; message: string };

export type WorkerMessage =
  | { type: "progress"; done: number }
  | { type: "log"; line: string }
  | { type: "result"; result: ContenderResult }
  | { type: "error"; message: string };

async function main(job: ContenderJob): Promise<void> {
  const post = (message: WorkerMessage) => parentPort?.postMessage(message);
  const template = new Promise<DatabaseTemplate>((resolve, reject) => {
    parentPort?.once("message", (message: ParentMessage) => {
      if (message.type === "template") resolve(message.template);
      else reject(new Error(`the database template could not be built: ${message.message}`));
    });
  });
  // Observed here so a contender that fails before it needs the database leaves no unhandled rejection behind.
  template.catch(() => {});
  try {
    const workload = generateWorkload({ events: job.events, seed: job.seed });
    const plan = planFaults(workload, { faults: job.faults, seed: job.seed });
    const [contender] = selectContenders(contenders(), [job.name]);
    if (!contender) throw new Error(`unknown contender ${job.name}`);
    const result = await runContender({
      contender,
      workload,
      plan,
      replicas: job.replicas,
      settings: job.settings,
      databases: new FreshDatabases(template),
      onProgress: (done) => post({ type: "progress", done }),
      ...(job.verbose ? { log: (line: string) => post({ type: "log", line }) } : {}),
    });
    post({ type: "result", result });
  } catch (error) {
    post({ type: "error", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
}

if (parentPort) void main(workerData as ContenderJob);
