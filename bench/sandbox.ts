// Sandbox throughput through the real SDKs: Service Bus messages sent (batches), received and completed
// (subscribe, and receiveMessages batches) against the emulator, and Stripe requests against the Stripe emulator.
// `npm run bench:sandbox`; options: `node dist/bench/sandbox.js [messages] [maxConcurrentCalls]`.
// The emulator runs in a worker thread, as a broker runs apart from its clients: the SDK's own per-message work
// (tracing spans, lock-renewal timers, decoding) would otherwise share one thread with the broker's.
import { performance, type EventLoopUtilization } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { ServiceBusClient, type ServiceBusReceiver, type ServiceBusSender } from "@azure/service-bus";
import { startServiceBusEmulator, type EmulatedQueueOptions, type QueueCounts } from "../sandbox/index.js";
import { measureStripeRequests } from "./stripe.js";

export interface ServiceBusBenchOptions {
  /** Messages per phase (default 20 000). */
  messages?: number;
  /** `subscribe` concurrency (default 100). */
  maxConcurrentCalls?: number;
  /** `receiveMessages` batch size (default 500). */
  receiveBatch?: number;
  /** Run the emulator on the SDK's own thread, as an in-process test harness does (default: a worker thread). */
  sameThread?: boolean;
}

export interface Phase {
  name: string;
  messages: number;
  seconds: number;
  perSecond: number;
  /** CPU time of the whole process (SDK client and emulator thread) per message: load-independent cost. */
  cpuMsPerMessage: number;
  /** Share of the phase the emulator's thread was busy (event-loop utilisation): below 1, it was not the limit. */
  emulatorBusy: number;
}

const usageEvent = (n: number) => ({
  customerId: `cus_${n % 997}`,
  stripeCustomerId: `cus_bench${n % 997}`,
  paymentMethodId: "pm_card_visa",
  billingPeriod: "2026-11",
  amountCents: 1000 + (n % 100),
  currency: "usd",
});

async function timed(emulator: RemoteEmulator, name: string, messages: number, run: () => Promise<void>): Promise<Phase> {
  await emulator.busy();
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return {
    name,
    messages,
    seconds,
    perSecond: messages / seconds,
    cpuMsPerMessage: (used.user + used.system) / 1000 / messages,
    emulatorBusy: await emulator.busy(),
  };
}

async function sendInBatches(sender: ServiceBusSender, from: number, count: number): Promise<void> {
  let batch = await sender.createMessageBatch();
  for (let n = from; n < from + count; n++) {
    const message = { body: usageEvent(n), messageId: `evt-${n}` };
    if (batch.tryAddMessage(message)) continue;
    await sender.sendMessages(batch);
    batch = await sender.createMessageBatch();
    if (!batch.tryAddMessage(message)) throw new Error(`message ${n} does not fit an empty batch`);
  }
  if (batch.count > 0) await sender.sendMessages(batch);
}

/** The emulator in a worker thread, seen from the bench. */
interface RemoteEmulator {
  connectionString: string;
  /** Messages the queue still holds in any state (active, locked, scheduled, deferred, dead-lettered). */
  held(queue: string): Promise<number>;
  /** The emulator thread's event-loop utilisation since the previous call. */
  busy(): Promise<number>;
  stop(): Promise<void>;
}

type WorkerAsk = { kind: "held"; queue: string } | { kind: "busy" } | { kind: "stop" };
type WorkerRequest = WorkerAsk & { id: number };
type WorkerReply = { id: number; held?: number; busy?: number } | { ready: string } | { failed: string };

async function startRemoteEmulator(queues: Record<string, EmulatedQueueOptions>): Promise<RemoteEmulator> {
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { role: "servicebus-emulator", queues } });
  const pending = new Map<number, (reply: WorkerReply) => void>();
  let next = 0;
  const connectionString = await new Promise<string>((resolve, reject) => {
    worker.once("error", reject);
    worker.on("message", (reply: WorkerReply) => {
      if ("ready" in reply) resolve(reply.ready);
      else if ("failed" in reply) reject(new Error(reply.failed));
      else pending.get(reply.id)?.(reply);
    });
  });
  const ask = (request: WorkerAsk) =>
    new Promise<WorkerReply>((resolve) => {
      const id = next++;
      pending.set(id, (reply) => {
        pending.delete(id);
        resolve(reply);
      });
      worker.postMessage({ ...request, id });
    });
  return {
    connectionString,
    held: async (queue) => ((await ask({ kind: "held", queue })) as { held: number }).held,
    busy: async () => ((await ask({ kind: "busy" })) as { busy: number }).busy,
    stop: async () => {
      await ask({ kind: "stop" });
      await worker.terminate();
    },
  };
}

/** Messages the queue still holds, in any state. */
const heldBy = (counts: QueueCounts): number => counts.active + counts.locked + counts.scheduled + counts.deferred + counts.deadLettered;

/** The emulator on this thread, behind the same interface (its busy share is not separable here: NaN). */
async function startLocalEmulator(queues: Record<string, EmulatedQueueOptions>): Promise<RemoteEmulator> {
  const emulator = await startServiceBusEmulator({ queues });
  return {
    connectionString: emulator.connectionString,
    held: async (queue) => heldBy(emulator.counts(queue)),
    busy: async () => Number.NaN,
    stop: () => emulator.stop(),
  };
}

async function serveEmulatorInWorker(queues: Record<string, EmulatedQueueOptions>): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const emulator = await startServiceBusEmulator({ queues });
  let since: EventLoopUtilization = performance.eventLoopUtilization();
  port.on("message", (request: WorkerRequest) => {
    if (request.kind === "busy") {
      const now = performance.eventLoopUtilization();
      port.postMessage({ id: request.id, busy: performance.eventLoopUtilization(now, since).utilization });
      since = now;
      return;
    }
    if (request.kind === "stop") {
      void emulator.stop().then(() => port.postMessage({ id: request.id }));
      return;
    }
    port.postMessage({ id: request.id, held: heldBy(emulator.counts(request.queue)) });
  });
  port.postMessage({ ready: emulator.connectionString });
}

async function drained(emulator: RemoteEmulator, queue: string): Promise<void> {
  while ((await emulator.held(queue)) > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Subscribes with auto-complete and resolves once `messages` deliveries were handled; rejects on the first error. */
function handledAll(receiver: ServiceBusReceiver, messages: number, maxConcurrentCalls: number): Promise<void> {
  let handled = 0;
  return new Promise<void>((resolve, reject) => {
    receiver.subscribe(
      {
        processMessage: async () => {
          if (++handled === messages) resolve();
        },
        processError: async (args) => reject(args.error),
      },
      { maxConcurrentCalls, autoCompleteMessages: true },
    );
  });
}

export async function measureServiceBus(options: ServiceBusBenchOptions = {}): Promise<Phase[]> {
  const messages = options.messages ?? 20_000;
  const maxConcurrentCalls = options.maxConcurrentCalls ?? 100;
  const receiveBatch = options.receiveBatch ?? 500;
  const queues = { subscribe: { lockDurationMs: 60_000 }, batches: { lockDurationMs: 60_000 } };
  const emulator = options.sameThread ? await startLocalEmulator(queues) : await startRemoteEmulator(queues);
  const client = new ServiceBusClient(emulator.connectionString);
  try {
    const phases: Phase[] = [];
    const sender = client.createSender("subscribe");
    phases.push(await timed(emulator, "send (createMessageBatch)", messages, () => sendInBatches(sender, 0, messages)));
    await sender.close();

    const receiver = client.createReceiver("subscribe");
    phases.push(
      await timed(emulator, `receive + complete (subscribe, maxConcurrentCalls ${maxConcurrentCalls})`, messages, async () => {
        await handledAll(receiver, messages, maxConcurrentCalls);
        // Completion follows the handler's return; wait until the last completions reached the broker.
        await drained(emulator, "subscribe");
      }),
    );
    await receiver.close();

    const batchSender = client.createSender("batches");
    await sendInBatches(batchSender, 0, messages);
    await batchSender.close();
    const batchReceiver = client.createReceiver("batches");
    phases.push(
      await timed(emulator, `receive + complete (receiveMessages ${receiveBatch})`, messages, async () => {
        let received = 0;
        while (received < messages) {
          const batch = await batchReceiver.receiveMessages(receiveBatch, { maxWaitTimeInMs: 1000 });
          received += batch.length;
          await Promise.all(batch.map((message) => batchReceiver.completeMessage(message)));
        }
      }),
    );
    await batchReceiver.close();
    await drained(emulator, "batches");

    const end = client.createSender("subscribe");
    const endReceiver = client.createReceiver("subscribe");
    phases.push(
      await timed(emulator, "send and receive + complete at once (subscribe)", messages, async () => {
        const done = handledAll(endReceiver, messages, maxConcurrentCalls);
        await sendInBatches(end, messages, messages);
        await done;
        await drained(emulator, "subscribe");
      }),
    );
    await end.close();
    await endReceiver.close();
    return phases;
  } finally {
    await client.close();
    await emulator.stop();
  }
}

function row(cells: string[], widths: number[]): string {
  return `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`;
}

const role = (workerData as { role?: string } | null)?.role;
if (!isMainThread && role === "servicebus-emulator") {
  await serveEmulatorInWorker((workerData as { queues: Record<string, EmulatedQueueOptions> }).queues).catch(
    (error: unknown) => parentPort?.postMessage({ failed: String(error) }),
  );
} else if (isMainThread && process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const messages = Number(process.argv[2] ?? 20_000);
  const maxConcurrentCalls = Number(process.argv[3] ?? 100);
  const phases = [
    ...(await measureServiceBus({ messages, maxConcurrentCalls })),
    ...(await measureServiceBus({ messages, maxConcurrentCalls, sameThread: true })).map((phase) => ({
      ...phase,
      name: `${phase.name}, emulator on the SDK's thread`,
    })),
  ];
  const stripe = await measureStripeRequests();
  const rows = [
    ...phases.map((phase) => [
      `Service Bus: ${phase.name}`,
      String(phase.messages),
      phase.seconds.toFixed(2),
      `${Math.round(phase.perSecond)} msg/s`,
      phase.cpuMsPerMessage.toFixed(3),
      Number.isNaN(phase.emulatorBusy) ? "" : `${Math.round(phase.emulatorBusy * 100)}%`,
    ]),
    [
      "Stripe: PaymentIntents create+confirm (concurrency 32, idempotency keys)",
      String(stripe.requests),
      stripe.seconds.toFixed(2),
      `${Math.round(stripe.perSecond)} req/s`,
      "",
      "",
    ],
  ];
  const header = ["Sandbox, real SDKs on 127.0.0.1", "count", "seconds", "rate", "CPU ms/msg", "emulator busy"];
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((r) => (r[i] ?? "").length)));
  console.log(row(header, widths));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(row(r, widths));
}
