// The committed generated consumer, built (dist/examples/generated-consumer/src/main.js, what `npm start` runs), is
// stopped the way Container Apps stops a replica it scales in: SIGTERM while a charge is in flight at Stripe. It must
// stop receiving, let that billing finish (Stripe's answer recorded in the guard, the message completed) and exit 0
// well within the grace period, which infra sets to at least the queue's delivery budget.
import { spawn } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { queueTuning } from "../../examples/generated-consumer/src/consumer.js";
import { startServiceBusEmulator, startStripeEmulator, type ServiceBusEmulator, type StripeEmulator } from "../../sandbox/index.js";

const root = path.resolve(import.meta.dirname, "../..");
const main = path.join(root, "dist/examples/generated-consumer/src/main.js");
const queue = "usage-billing";
/** Long enough that the SIGTERM surely lands mid-call, far below the queue's delivery budget. */
const slowStripeMs = 3_000;

let serviceBus: ServiceBusEmulator;
let stripe: StripeEmulator;
let workDir: string;

beforeAll(async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does)`);
  // The queue as deployed: the lock the generated consumer's tuning computes (it covers a delivery, no renewal).
  serviceBus = await startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: queueTuning.lockDurationMs } } });
  stripe = await startStripeEmulator();
  // Its embedded database lives under ./.data of its working directory.
  workDir = await mkdtemp(path.join(tmpdir(), "chargeguard-sigterm-"));
});

afterAll(async () => {
  await serviceBus?.stop();
  await stripe?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

it("SIGTERM mid-charge: stops receiving, records Stripe's answer, completes the message, exits 0", async () => {
  expect(slowStripeMs).toBeLessThan(queueTuning.deliveryBudgetMs);
  const customer = await new Stripe("rk_test_sandbox", stripe.stripeConfig).customers.create({});
  let inFlight!: () => void;
  const callArrived = new Promise<void>((resolve) => (inFlight = resolve));
  stripe.faults.inject({
    method: "POST",
    path: /^\/v1\/payment_intents$/,
    action: "latency",
    ms: slowStripeMs,
    times: 1,
    when: () => {
      inFlight();
      return true;
    },
  });

  const { consumer, output: outputNow, exited } = startBuilt();
  const client = new ServiceBusClient(serviceBus.connectionString);
  try {
    await client.createSender(queue).sendMessages({
      body: { customerId: "acme-1", stripeCustomerId: customer.id, paymentMethodId: "pm_card_visa", billingPeriod: "2026-10", amountCents: 4_200, currency: "eur" },
    });
    await callArrived;
    consumer.kill("SIGTERM");
    // A second message sent after the SIGTERM must stay in the queue: the consumer stopped receiving.
    await client.createSender(queue).sendMessages({
      body: { customerId: "acme-2", stripeCustomerId: customer.id, paymentMethodId: "pm_card_visa", billingPeriod: "2026-10", amountCents: 4_300, currency: "eur" },
    });

    expect(await exited, outputNow()).toBe(0);
    expect(outputNow()).toMatch(/SIGTERM: stopping[\s\S]*acme-1 2026-10: charged pi_\w+, completed/);
    expect(stripe.ledger.paymentIntents(customer.id).map((intent) => [intent.amount, intent.status])).toEqual([[4_200, "succeeded"]]);
    // Completed before exit: nothing of it is left locked or waiting; only the message sent after SIGTERM remains.
    expect(serviceBus.counts(queue)).toMatchObject({ active: 1, locked: 0, scheduled: 0, deadLettered: 0 });

    const database = await PGlite.create(path.join(workDir, ".data/billing"));
    try {
      const { rows } = await database.query<{ customer_id: string; state: string; object_id: string }>(
        "SELECT record_key::jsonb ->> 'customerId' AS customer_id, state, object_id FROM guard_records",
      );
      expect(rows).toEqual([{ customer_id: "acme-1", state: "done", object_id: stripe.ledger.paymentIntents(customer.id)[0]?.id }]);
    } finally {
      await database.close();
    }
  } finally {
    if (consumer.exitCode === null) consumer.kill("SIGKILL");
    await client.close();
  }
}, 120_000);

/** The built consumer with the sandbox's settings (and `extra`); its output and its exit code. */
function startBuilt(extra: Record<string, string> = {}) {
  const consumer = spawn(process.execPath, [main], {
    cwd: workDir,
    env: { PATH: process.env.PATH, SERVICEBUS_CONNECTION_STRING: serviceBus.connectionString, SERVICEBUS_QUEUE: queue, STRIPE_API_KEY: "rk_test_sandbox", STRIPE_API_BASE: stripe.apiBase, ...extra },
  });
  let output = "";
  consumer.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  consumer.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => consumer.on("exit", (code) => resolve(code)));
  return { consumer, output: () => output, exited };
}

it("Ctrl-C (SIGINT): one line, exit 130, as its README says", async () => {
  const run = startBuilt();
  const deadline = Date.now() + 60_000;
  while (!/consuming usage-billing/.test(run.output()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  run.consumer.kill("SIGINT");
  expect(await run.exited, run.output()).toBe(130);
  expect(run.output()).toMatch(/SIGINT: stopping/);
}, 90_000);

it("a taken HEALTH_PORT is a configuration error naming the variable, exit 2 (not a bare EADDRINUSE, exit 1)", async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "0.0.0.0", resolve));
  const taken = (blocker.address() as AddressInfo).port;
  try {
    const run = startBuilt({ HEALTH_PORT: String(taken) });
    expect(await run.exited, run.output()).toBe(2);
    expect(run.output()).toContain(`HEALTH_PORT ${taken} is already in use on 0.0.0.0: set HEALTH_PORT to a free port`);
    expect(run.output()).not.toContain("EADDRINUSE");
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
}, 90_000);
