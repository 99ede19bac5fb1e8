// A replica started into a PostgreSQL outage, as Container Apps starts one: the built generated consumer
// (dist/examples/generated-consumer/src/main.js, what `npm start` runs) with its DATABASE_URL through the sandbox's
// fault proxy, refusing every connection. It must not exit (no exit but by signal): it answers /startup (so the
// platform does not restart it into the same outage), stays live and not ready, receives nothing, logs one line for
// the wait, and bills once the database answers; SIGTERM while it waits is the platform's normal stop (exit 0), Ctrl-C
// an interrupted command (130). A wrong DATABASE_URL is no outage: exit 2 at once, naming it.
import { createServer, type AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueTuning } from "../../examples/generated-consumer/src/consumer.js";
import { startDatabaseFaultProxy, type DatabaseFaultProxy } from "../../sandbox/database/index.js";
import { startServiceBusEmulator, startStripeEmulator, type ServiceBusEmulator, type StripeEmulator } from "../../sandbox/index.js";
import { createScratchDatabase, postgresServerUrl } from "../runtime/guard/databases.js";
import { startBuiltConsumer, killRunning, type BuiltConsumer } from "../support/built-consumer.js";

const root = path.resolve(import.meta.dirname, "../..");
const main = path.join(root, "dist/examples/generated-consumer/src/main.js");
const queue = "usage-billing";
/** How long the database refuses while the replica waits: several of the wait's 1-10 s backoffs. */
const outageMs = 15_000;

let serviceBus: ServiceBusEmulator;
let stripe: StripeEmulator;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let proxy: DatabaseFaultProxy;
let workDir: string;
const started: BuiltConsumer[] = [];

beforeAll(async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does)`);
  serviceBus = await startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: queueTuning.lockDurationMs } } });
  stripe = await startStripeEmulator();
  database = await createScratchDatabase(await postgresServerUrl());
  const target = new URL(database.url);
  proxy = await startDatabaseFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
  workDir = await mkdtemp(path.join(tmpdir(), "chargeguard-database-wait-"));
});

afterAll(async () => {
  await killRunning(started.map((consumer) => consumer.child));
  await proxy?.stop();
  await database?.drop();
  await serviceBus?.stop();
  await stripe?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The built consumer on the sandbox, its database at `databaseUrl`, its probes on a free port. */
async function startReplica(name: string, databaseUrl: string): Promise<BuiltConsumer & { probe: (what: string) => Promise<string> }> {
  const healthPort = await freePort();
  const consumer = await startBuiltConsumer(main, path.join(workDir, name), {
    SERVICEBUS_CONNECTION_STRING: serviceBus.connectionString,
    SERVICEBUS_QUEUE: queue,
    STRIPE_API_KEY: "rk_test_sandbox",
    STRIPE_API_BASE: stripe.apiBase,
    DATABASE_URL: databaseUrl,
    HEALTH_PORT: String(healthPort),
  });
  started.push(consumer);
  const probe = async (what: string) => {
    const response = await fetch(`http://127.0.0.1:${healthPort}/${what}`).catch(() => undefined);
    return response === undefined ? "no answer" : `${response.status} ${(await response.text()).trim()}`;
  };
  return { ...consumer, probe };
}

async function until(what: string, consumer: BuiltConsumer, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (consumer.child.exitCode !== null) throw new Error(`exited ${consumer.child.exitCode} before ${what}:\n${consumer.output()}`);
    if (Date.now() > deadline) throw new Error(`not ${what} within ${timeoutMs} ms:\n${consumer.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const databaseLines = (output: string) => output.split("\n").filter((line) => / database: /.test(line));

describe("the generated consumer started while PostgreSQL refuses connections", () => {
  it("waits live and not ready, receiving nothing, one log line; bills once the database answers; SIGTERM exits 0", async () => {
    const customer = await new Stripe("rk_test_sandbox", stripe.stripeConfig).customers.create({});
    const client = new ServiceBusClient(serviceBus.connectionString);
    try {
      await client.createSender(queue).sendMessages({
        body: { customerId: "acme-wait", stripeCustomerId: customer.id, paymentMethodId: "pm_card_visa", billingPeriod: "2026-12", amountCents: 4_700, currency: "eur" },
      });
      proxy.mode("refuse");
      const replica = await startReplica("outage", proxy.urlFor(database.url));
      await until("waiting for the database", replica, () => /database: unreachable at start/.test(replica.output()), 30_000);
      const waitingSince = Date.now();
      // Started as far as the platform goes (no restart into the same outage), live, out of rotation.
      await until("answering its probes", replica, async () => (await replica.probe("startup")).startsWith("200"), 10_000);
      expect(await replica.probe("startup")).toBe("200 waiting for the database");
      expect(await replica.probe("ready")).toBe("503 not ready: waiting for the database");
      expect(await replica.probe("live")).toBe("200 ok");
      while (Date.now() - waitingSince < outageMs) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(replica.child.exitCode, replica.output()).toBeNull();
      }
      // Nothing received while it cannot record a billing: the message waits on the queue, unlocked, first delivery.
      expect(serviceBus.counts(queue)).toMatchObject({ active: 1, locked: 0, deadLettered: 0 });
      expect(stripe.ledger.paymentIntents(customer.id)).toEqual([]);
      // One line for the wait, not one per attempt (the next comes a minute on).
      expect(databaseLines(replica.output())).toHaveLength(1);

      proxy.mode("pass");
      await until("billed", replica, () => stripe.ledger.paymentIntents(customer.id).length > 0 && serviceBus.counts(queue).active === 0, 60_000);
      await until("ready", replica, async () => (await replica.probe("ready")) === "200 ok", 10_000);
      expect(stripe.ledger.paymentIntents(customer.id).map((intent) => [intent.amount, intent.status])).toEqual([[4_700, "succeeded"]]);
      expect(databaseLines(replica.output())).toEqual([expect.stringMatching(/database: unreachable at start/), expect.stringMatching(/database: reachable after \d+ s; starting$/)]);

      replica.child.kill("SIGTERM");
      expect(await replica.exited, replica.output()).toBe(0);
    } finally {
      proxy.mode("pass");
      await client.close();
    }
  }, 150_000);

  it.each([
    ["SIGTERM", 0],
    ["SIGINT", 130],
  ] as const)("%s while it waits for the database: stops at once, exit %i", async (signal, code) => {
    proxy.mode("refuse");
    try {
      const replica = await startReplica(`stopped-${signal}`, proxy.urlFor(database.url));
      await until("waiting for the database", replica, () => /database: unreachable at start/.test(replica.output()), 30_000);
      const sent = Date.now();
      replica.child.kill(signal);
      expect(await replica.exited, replica.output()).toBe(code);
      // Within the wait's backoff, far inside Container Apps' 30 s grace period.
      expect(Date.now() - sent).toBeLessThan(10_000);
      expect(replica.output()).toMatch(new RegExp(`${signal}: stopping`));
    } finally {
      proxy.mode("pass");
    }
  }, 60_000);
});

describe("a wrong DATABASE_URL is a configuration error, not a wait", () => {
  it.each([
    ["no such database", () => Object.assign(new URL(proxy.urlFor(database.url)), { pathname: "/chargeguard_no_such_database" }).toString(), /chargeguard_no_such_database/],
    ["a host name that does not resolve", () => "postgres://billing@chargeguard-no-such-host.invalid:5432/billing", /does not resolve/],
  ])("%s: exit 2 at once, naming DATABASE_URL", async (name, url, detail) => {
    const replica = await startReplica(`wrong-${name.replaceAll(" ", "-")}`, url());
    const at = Date.now();
    expect(await replica.exited, replica.output()).toBe(2);
    expect(Date.now() - at).toBeLessThan(20_000);
    expect(replica.output()).toMatch(/configuration: DATABASE_URL /);
    expect(replica.output()).toMatch(detail);
  }, 60_000);
});
