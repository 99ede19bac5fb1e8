// One side of a seed scenario: the seed's Python consumer or its guarded one (two replicas, each restarted when it
// dies, as a container would be) or the TypeScript port (two replicas in this process), on a fresh queue and a fresh
// Stripe, under the scenario's fault; then what reached Stripe, per event.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import Stripe from "stripe";
import { brokenExamples } from "../../examples/broken/index.js";
import type { RunningConsumer } from "../../runtime/index.js";
import { startStripeEmulator, type InjectedFault, type ServiceBusEmulator } from "../../sandbox/index.js";
import type { SeedScenario } from "./seed-scenarios.js";

/** The seed's broken consumer, its TypeScript port, or the seed's own safe consumer (its guard on PostgreSQL). */
export type Side = "python" | "port" | "guard";

export interface SideResult {
  side: Side;
  events: number;
  /** Succeeded charges at Stripe (a PaymentIntent's charge included). */
  charges: number;
  /** Charges beyond one per event. */
  duplicateCharges: number;
  /** Deliveries from the queue, redeliveries included: more than `events` when the fault made a redelivery. */
  deliveries: number;
  /** How often a Python replica died and was started again, and the last words of the last one that died. */
  restarts: number;
  lastError?: string;
}

const replicas = 2;
const sandboxKey = "sk_test_sandbox";
/** prove/python in the checkout, from the sources or from dist/prove/python. */
const here = fileURLToPath(new URL(import.meta.url.includes("/dist/") ? "../../../prove/python/" : "./", import.meta.url));

/** `databaseUrl`: the PostgreSQL the seed's guard keeps billing_records in (side "guard" only). */
export async function runSide(
  serviceBus: ServiceBusEmulator,
  scenario: SeedScenario,
  side: Side,
  events: number,
  python: string,
  databaseUrl?: string,
): Promise<SideResult> {
  const stripe = await startStripeEmulator();
  const queue = `seed-${scenario.port}-${side}`;
  serviceBus.addQueue(queue, { lockDurationMs: scenario.lockDurationMs, maxDeliveryCount: scenario.maxDeliveryCount ?? 10 });
  let faults: InjectedFault[] = [];
  try {
    const customers = await createCustomers(stripe.apiBase, events);
    if (side === "guard") await createBillingRecords(databaseUrl);
    await sendEvents(serviceBus, queue, side, customers);
    faults = scenario.arm({ serviceBus, stripe, queue, events });
    const env = { ...operatorEnv(serviceBus, queue, stripe.apiBase), ...(side === "guard" ? { DATABASE_URL: databaseUrl, KEYBRAKE_VAULT_KEY: sandboxKey } : {}) };
    const fleet = side === "port" ? await portFleet(scenario, serviceBus, queue, stripe.apiBase) : pythonFleet(python, side === "guard" ? "consumer_guarded.py" : scenario.snippet, env);
    try {
      await drained(serviceBus, queue, 90_000);
      if (scenario.operator) {
        for (const fault of faults) fault.remove();
        await runPython(python, [`seed/${scenario.snippet}`, scenario.operator], operatorEnv(serviceBus, queue, stripe.apiBase));
        await drained(serviceBus, queue, 60_000);
      }
    } finally {
      await fleet.stop();
    }
    const charges = stripe.ledger.charges().filter((charge) => charge.status === "succeeded");
    const perCustomer = new Map<string, number>();
    for (const charge of charges) perCustomer.set(String(charge.customer), (perCustomer.get(String(charge.customer)) ?? 0) + 1);
    const duplicateCharges = [...perCustomer.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    const lastError = fleet.lastError();
    const { deliveries } = serviceBus.counts(queue);
    return { side, events, charges: charges.length, duplicateCharges, deliveries, restarts: fleet.restarts(), ...(lastError ? { lastError } : {}) };
  } finally {
    for (const fault of faults) fault.remove();
    await stripe.stop();
  }
}

async function createCustomers(apiBase: string, count: number): Promise<string[]> {
  const url = new URL(apiBase);
  const stripe = new Stripe(sandboxKey, { host: url.hostname, port: Number(url.port), protocol: "http", maxNetworkRetries: 0 });
  const customers: string[] = [];
  for (let index = 0; index < count; index++) customers.push((await stripe.customers.create({ source: "tok_visa" })).id);
  return customers;
}

/**
 * Each side gets the body its code reads: the seed's snake_case event, or the port's UsageEvent; JSON bytes in a data
 * section either way, as a Python producer's `ServiceBusMessage(json.dumps(event))` sends them. The seed's customer
 * ids are new on every run: its guard's billing_records outlive a run, and a row left by another would skip the charge.
 */
async function sendEvents(serviceBus: ServiceBusEmulator, queue: string, side: Side, customers: string[]): Promise<void> {
  const { ServiceBusClient } = await import("@azure/service-bus");
  const client = new ServiceBusClient(serviceBus.connectionString);
  const run = randomUUID().slice(0, 8);
  try {
    const bodies = customers.map((customer, index) =>
      side !== "port"
        ? { customer_id: `acme-${run}-${index}`, stripe_customer_id: customer, amount_cents: 4_900, billing_period: "2026-11" }
        : { customerId: `acme-${index}`, stripeCustomerId: customer, paymentMethodId: "pm_card_visa", amountCents: 4_900, billingPeriod: "2026-11", currency: "usd" },
    );
    await client.createSender(queue).sendMessages(bodies.map((body) => ({ body: Buffer.from(JSON.stringify(body)) })));
  } finally {
    await client.close();
  }
}

interface Fleet {
  stop(): Promise<void>;
  restarts(): number;
  lastError(): string | undefined;
}

function operatorEnv(serviceBus: ServiceBusEmulator, queue: string, stripeApiBase: string): NodeJS.ProcessEnv {
  const tls = serviceBus.tls;
  if (!tls) throw new Error("the Python contenders need the sandbox's AMQPS listener");
  return {
    ...process.env,
    AZURE_SERVICEBUS_CONNECTION_STRING: tls.connectionString,
    AZURE_SERVICEBUS_QUEUE_NAME: queue,
    STRIPE_SECRET_KEY: sandboxKey,
    SERVICEBUS_CA_FILE: tls.caFile,
    STRIPE_API_BASE: stripeApiBase,
    PYTHONUNBUFFERED: "1",
  };
}

/** Replicas of the seed's consumer; one that dies (the seed's loops catch little) is started again. */
function pythonFleet(python: string, snippet: string, env: NodeJS.ProcessEnv): Fleet {
  let stopping = false;
  let restarts = 0;
  let lastError: string | undefined;
  const children = new Set<ChildProcess>();
  const start = (): void => {
    const child = spawn(python, [`${here}run_seed.py`, `${here}seed/${snippet}`], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
    children.add(child);
    child.once("error", () => {});
    child.once("exit", () => {
      children.delete(child);
      if (stopping) return;
      restarts++;
      lastError = stderr.trim().split("\n").slice(-1)[0];
      setTimeout(() => !stopping && start(), 200);
    });
  };
  for (let index = 0; index < replicas; index++) start();
  return {
    restarts: () => restarts,
    lastError: () => lastError,
    async stop() {
      stopping = true;
      await Promise.all(
        [...children].map((child) => new Promise<void>((resolve) => {
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        })),
      );
    },
  };
}

async function portFleet(scenario: SeedScenario, serviceBus: ServiceBusEmulator, queue: string, stripeApiBase: string): Promise<Fleet> {
  const example = brokenExamples.find((candidate) => candidate.name === scenario.port);
  if (!example) throw new Error(`no broken example named ${scenario.port}`);
  const { startConsumer } = await example.load();
  const running: RunningConsumer[] = [];
  for (let index = 0; index < replicas; index++) {
    running.push(
      await startConsumer({
        serviceBus: { connectionString: serviceBus.connectionString, queueName: queue },
        stripe: { apiKey: sandboxKey, apiBase: stripeApiBase, maxNetworkRetries: 0, timeoutMs: 10_000 },
        log: () => {},
      }),
    );
  }
  return { restarts: () => 0, lastError: () => undefined, stop: async () => void (await Promise.all(running.map((consumer) => consumer.close()))) };
}

/** The seed's table, as its statements use it: one row per (customer_id, billing_period). */
async function createBillingRecords(databaseUrl: string | undefined): Promise<void> {
  if (!databaseUrl) throw new Error("the seed's guard needs a PostgreSQL URL");
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS billing_records (
      customer_id text NOT NULL, billing_period text NOT NULL, charge_id text, amount_cents integer NOT NULL,
      status text NOT NULL, error text, created_at timestamptz NOT NULL, PRIMARY KEY (customer_id, billing_period))`);
  } finally {
    await client.end();
  }
}

/** Until nothing is active, locked, scheduled or deferred for a second (dead letters stay where they are). */
async function drained(serviceBus: ServiceBusEmulator, queue: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quietSince: number | undefined;
  while (Date.now() < deadline) {
    const counts = serviceBus.counts(queue);
    const busy = counts.active + counts.locked + counts.scheduled + counts.deferred;
    if (busy > 0) quietSince = undefined;
    else if ((quietSince ??= Date.now()) < Date.now() - 1_000) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`queue ${queue} did not drain within ${timeoutMs} ms: ${JSON.stringify(serviceBus.counts(queue))}`);
}

function runPython(python: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    const child = spawn(python, [`${here}run_seed.py`, ...args.map((arg, index) => (index === 0 ? `${here}${arg}` : arg))], { env, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}
