// End-to-end throughput of the billing consumer with and without the guard, on the sandbox (real Service Bus and
// Stripe SDKs against the emulators, the guard on PGlite or PostgreSQL), at a fixed Stripe latency. bench/guard.ts
// compares the two: the guard should cost at most 10% at 50 ms of Stripe latency. "Without the guard" is the same
// billing consumer (same parse, stable key, Stripe client and call, settlement, concurrency) with a guard port that
// claims everything and records nothing, so the difference between the two is the guard and nothing else.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { ServiceBusClient, type ServiceBusMessage } from "@azure/service-bus";
import pg from "pg";
import Stripe from "stripe";
import { startBillingConsumer, type RunningConsumer, type UsageEvent } from "../runtime/index.js";
import { decorateStore, type GuardStore } from "../runtime/guard/index.js";
import { Guard } from "../runtime/index.js";
import { createBillingTelemetry } from "../runtime/telemetry/index.js";
import { startServiceBusEmulator, startStripeEmulator } from "../sandbox/index.js";
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";

export interface ConsumerThroughputOptions {
  events: number;
  /** Added to every PaymentIntent create; default 50. */
  stripeLatencyMs?: number;
  /** The billing consumer with the guard, or the same consumer with a pass-through guard port. */
  withGuard: boolean;
  /** Messages in flight per consumer; default 16. */
  concurrency?: number;
  /** Stripe calls at a time (with their claims); default: `concurrency`. */
  stripeConcurrency?: number;
  /** PostgreSQL for the guard; absent: in-memory PGlite. */
  databaseUrl?: string;
  /** Spread the events over this many billing periods (each period has one spend-ledger row); default 1. */
  periods?: number;
  /**
   * Without the guard, but with two fsync'd single-row INSERTs per message on `databaseUrl` in its place (one before
   * the Stripe call, one after): what any durable claim and record would cost at the least on this server.
   */
  twoInserts?: boolean;
  /** Run the emulators in the consumer's own process (default: in a child process, as remote services would be). */
  sandboxInProcess?: boolean;
  /**
   * Telemetry on: the OpenTelemetry SDK registered for the consumer with exporters (metrics every second and spans
   * in batches, to memory) and the guard's gauges observed; off (default): the API's no-op.
   */
  telemetry?: boolean;
}

export interface ConsumerThroughput {
  events: number;
  seconds: number;
  perSecond: number;
  /**
   * CPU time of the consumer's process per event while it drains the queue (user + system; the emulators run in a
   * child process unless `sandboxInProcess`): what the consumer costs, steadier than a rate on a shared machine.
   */
  cpuMsPerEvent: number;
  /** Mean milliseconds per call of each guard step the handler waits for (with the guard only). */
  guardStepMs?: Record<string, number>;
}

const queue = "billing-bench";
const apiKey = "rk_test_sandbox";

export async function measureConsumerThroughput(options: ConsumerThroughputOptions): Promise<ConsumerThroughput> {
  if (!Number.isSafeInteger(options.events) || options.events < 1) throw new Error(`events must be a positive integer, got ${options.events}`);
  const concurrency = options.concurrency ?? 16;
  const workload = { events: options.events, stripeLatencyMs: options.stripeLatencyMs ?? 50, periods: options.periods ?? 1 };
  const sandbox = options.sandboxInProcess ? await startLoadedSandbox(workload) : await startSandboxProcess(workload);
  let pglite: PGlite | undefined;
  let guard: Guard | undefined;
  let consumer: RunningConsumer | undefined;
  let floor: pg.Pool | undefined;
  let sdk: ReturnType<typeof telemetrySdk> | undefined;
  try {
    // Everything slow to open (the database) is opened before the clock starts.
    if (options.withGuard) {
      if (!options.databaseUrl) pglite = await PGlite.create();
      guard = await Guard.open(
        // A connection per message in flight plus one for batched completions, as the consumer sizes its own pool.
        options.databaseUrl ? { databaseUrl: options.databaseUrl, poolSize: concurrency + 1 } : { pglite: pglite as PGlite },
      );
    }
    if (options.twoInserts) {
      if (options.withGuard || !options.databaseUrl) throw new Error("twoInserts replaces the guard and needs databaseUrl");
      floor = new pg.Pool({ connectionString: options.databaseUrl, max: concurrency + 1 });
      await floor.query("CREATE TABLE IF NOT EXISTS bench_two_inserts (id text PRIMARY KEY)");
    }
    const timings = new Map<string, { calls: number; ms: number }>();
    sdk = options.telemetry ? telemetrySdk() : undefined;
    const stopObserving = sdk && guard ? sdk.telemetry.observeGuard(() => (guard as Guard).health()) : undefined;
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const drained = sandbox.drained();
    consumer = await startBillingConsumer({
      serviceBus: { connectionString: sandbox.connectionString, queueName: queue },
      stripe: { apiKey, apiBase: sandbox.apiBase, timeoutMs: 10_000, maxNetworkRetries: 1 },
      guard: guard ? timed(guard, timings) : floor ? twoInsertsPort(floor) : passThroughGuard,
      maxConcurrentCalls: concurrency,
      ...(options.stripeConcurrency === undefined ? {} : { maxConcurrentStripeCalls: options.stripeConcurrency }),
      ...(sdk ? { telemetry: sdk.telemetry } : {}),
      log: () => {},
    });
    const charged = await drained;
    const cpu = process.cpuUsage(cpuBefore);
    stopObserving?.();
    const seconds = (performance.now() - started) / 1000;
    if (charged !== options.events) throw new Error(`expected ${options.events} charges, Stripe has ${charged}`);
    const guardStepMs = Object.fromEntries([...timings].map(([step, { calls, ms }]) => [step, ms / calls]));
    const cpuMsPerEvent = (cpu.user + cpu.system) / 1000 / options.events;
    return { events: options.events, seconds, perSecond: options.events / seconds, cpuMsPerEvent, ...(guard ? { guardStepMs } : {}) };
  } finally {
    await consumer?.close();
    await sdk?.shutdown();
    await floor?.end();
    await guard?.close();
    await pglite?.close();
    await sandbox.stop();
  }
}

/** The real SDK with exporters, as an application registers it (to memory here, so the network is not measured). */
function telemetrySdk() {
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 1_000, exportTimeoutMillis: 900 })],
  });
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spanExporter)] });
  return {
    telemetry: createBillingTelemetry({ meterProvider, tracerProvider }),
    async shutdown() {
      await Promise.all([meterProvider.shutdown(), tracerProvider.shutdown()]);
    },
  };
}

interface Workload {
  events: number;
  stripeLatencyMs: number;
  periods: number;
}

/** The emulators with the workload queued: where the consumer connects, and when the queue is empty. */
interface LoadedSandbox {
  connectionString: string;
  apiBase: string;
  /** Resolves when no message is left (active, locked or scheduled), with the number of succeeded PaymentIntents. */
  drained(): Promise<number>;
  stop(): Promise<void>;
}

async function startLoadedSandbox(workload: Workload): Promise<LoadedSandbox> {
  const serviceBus = await startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: 60_000 } } });
  const stripe = await startStripeEmulator();
  const stop = async () => {
    await serviceBus.stop();
    await stripe.stop();
  };
  try {
    stripe.faults.inject({ method: "POST", path: "/v1/payment_intents", action: "latency", ms: workload.stripeLatencyMs });
    const admin = new Stripe(apiKey, { ...stripe.stripeConfig, maxNetworkRetries: 0 });
    const customer = await admin.customers.create({ name: "bench" });
    const run = Date.now().toString(36);
    const events: UsageEvent[] = Array.from({ length: workload.events }, (_, i) => ({
      customerId: `bench-${run}-${i}`,
      stripeCustomerId: customer.id,
      paymentMethodId: "pm_card_visa",
      billingPeriod: periodNumber(i % workload.periods),
      amountCents: 1_000 + i,
      currency: "usd",
    }));
    const client = new ServiceBusClient(serviceBus.connectionString);
    await send(client, events.map((event, i) => ({ body: event, messageId: `bench-${i}` })));
    await client.close();
    return {
      connectionString: serviceBus.connectionString,
      apiBase: stripe.apiBase,
      drained: async () => {
        await waitUntilDrained(() => {
          const counts = serviceBus.counts(queue);
          return counts.active + counts.locked + counts.scheduled === 0;
        });
        return stripe.ledger.paymentIntents(customer.id).filter((pi) => pi.status === "succeeded").length;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

type SandboxMessage =
  | { type: "ready"; connectionString: string; apiBase: string }
  | { type: "drained"; charged: number }
  | { type: "failed"; error: string };

const childFlag = "CHARGEGUARD_BENCH_SANDBOX_CHILD";

/**
 * The emulators in a child process, as Service Bus and Stripe are other machines in production: their CPU work
 * then does not delay the consumer's event loop (on which every guard round trip waits), for both variants alike.
 */
async function startSandboxProcess(workload: Workload): Promise<LoadedSandbox> {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(workload)], { env: { ...process.env, [childFlag]: "1" }, stdio: "inherit" });
  const next = (type: SandboxMessage["type"]) =>
    new Promise<SandboxMessage>((resolve, reject) => {
      const onMessage = (message: SandboxMessage) => {
        if (message.type !== type && message.type !== "failed") return;
        child.off("message", onMessage);
        child.off("exit", onExit);
        if (message.type === "failed") reject(new Error(`sandbox process: ${message.error}`));
        else resolve(message);
      };
      const onExit = (code: number | null) => reject(new Error(`sandbox process exited (${code}) before "${type}"`));
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  const ready = (await next("ready").catch((error: unknown) => {
    child.kill();
    throw error;
  })) as Extract<SandboxMessage, { type: "ready" }>;
  return {
    connectionString: ready.connectionString,
    apiBase: ready.apiBase,
    drained: async () => ((await next("drained")) as Extract<SandboxMessage, { type: "drained" }>).charged,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "stop" });
      await exited;
    },
  };
}

/** The child's side: loads the sandbox, says where it is, reports when the queue is drained, stops when told. */
async function runSandboxChild(workload: Workload): Promise<void> {
  const tell = (message: SandboxMessage) => process.send?.(message);
  try {
    const sandbox = await startLoadedSandbox(workload);
    process.on("message", (message: { type?: string }) => {
      if (message.type === "stop") void sandbox.stop().finally(() => process.exit(0));
    });
    tell({ type: "ready", connectionString: sandbox.connectionString, apiBase: sandbox.apiBase });
    tell({ type: "drained", charged: await sandbox.drained() });
  } catch (error) {
    tell({ type: "failed", error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
}

if (process.env[childFlag] === "1" && process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  await runSandboxChild(JSON.parse(process.argv[2] ?? "{}") as Workload);
}

/** A store that lets every delivery call Stripe and records nothing: fine for a benchmark, unsafe for billing. */
const passThroughGuard: GuardStore<never> = {
  claim: async () => ({ status: "claimed", lease: { lockedUntil: new Date(Date.now() + 60_000) } as never, attempt: 1, steps: {}, createdAt: new Date() }),
  saveStep: async () => {},
  markDone: async () => true,
  markDeclined: async () => true,
  release: async () => {},
  forget: async () => true,
};

/** The pass-through store plus one durable single-row INSERT where the claim and one where the record would be. */
function twoInsertsPort(pool: pg.Pool): GuardStore<never> {
  const insert = () => pool.query("INSERT INTO bench_two_inserts VALUES ($1)", [randomUUID()]);
  return decorateStore(passThroughGuard, async (method, call) => {
    if (method === "claim" || method === "markDone") await insert();
    return call();
  });
}

/** The guard, timing each step the handler awaits. */
function timed(guard: Guard, timings: Map<string, { calls: number; ms: number }>): GuardStore<never> {
  return decorateStore(guard as GuardStore<never>, async (step, call) => {
    const started = performance.now();
    try {
      return await call();
    } finally {
      const entry = timings.get(step) ?? { calls: 0, ms: 0 };
      entry.calls++;
      entry.ms += performance.now() - started;
      timings.set(step, entry);
    }
  });
}

/** 0 -> "2026-01", 1 -> "2026-02", ... */
function periodNumber(n: number): string {
  return `${2026 + Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, "0")}`;
}

async function send(client: ServiceBusClient, messages: ServiceBusMessage[]): Promise<void> {
  const sender = client.createSender(queue);
  for (let i = 0; i < messages.length; i += 100) await sender.sendMessages(messages.slice(i, i + 100));
  await sender.close();
}

async function waitUntilDrained(drained: () => boolean): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (!drained()) {
    if (Date.now() > deadline) throw new Error("the consumer did not drain the queue within 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
