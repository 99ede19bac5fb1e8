// Tried as a new operator would, for every queue of every stack: the consumer `chargeguard new consumer --stack S
// --queue Q` generates (examples/generated-consumer, or generated-consumer-<flow> for the queue's flow, built, with
// the queue-budget.json the scaffolder writes for S and Q), started with exactly the environment the offline plan gives its Container App, against the sandbox queue as the
// plan deploys it (lock, deliveries, TTL, duplicate detection; the rights the plan grants the app's identity), bills
// every event once: 0 duplicates, 0 missing, 0 dead-lettered. Only what reaches Azure (the namespace host, Entra
// sign-ins, the Key Vault secret, Application Insights) is swapped for its local stand-in, by name.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { builtInRoles } from "../../infra/specs/index.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { startServiceBusEmulator, type EmulatedQueueOptions } from "../../sandbox/servicebus/index.js";
import { startStripeEmulator } from "../../sandbox/stripe/index.js";
import { queueBudgetFile, renderQueueBudget } from "../../templates/queue-budget.js";
import { flowStripeCalls, parseIsoDuration, type FlowName } from "../../tuning/index.js";
import { checkout, ensureBuilt, userEnv } from "../support/generated-project.js";

/**
 * The plan's variables that reach Azure, and HEALTH_PORT (a free port here: the machine is shared), swapped for their
 * local stand-ins. Everything else passes through as planned.
 */
const azureOnly = new Set(["SERVICEBUS_FULLY_QUALIFIED_NAMESPACE", "AZURE_CLIENT_ID", "DATABASE_URL", "DATABASE_AUTH", "STRIPE_API_KEY", "APPLICATIONINSIGHTS_CONNECTION_STRING", "HEALTH_PORT"]);
/** The committed generated consumer of a flow, built: what `chargeguard new consumer --flow F` writes. */
const builtConsumerOf = (flow: FlowName) => path.join(checkout, "dist", "examples", flow === "payment-intent" ? "generated-consumer" : `generated-consumer-${flow}`, "src");
const builtConsumer = builtConsumerOf("payment-intent");
const events = 6;
/** A stack (test/fixtures) whose queue is billed through the invoice flow: 23 Stripe calls a message at most. */
const invoicingStack = path.join(checkout, "test", "fixtures", "stacks", "Pulumi.invoicing.yaml");

/** One flow's event as its generated project's src/event.ts takes it, and whether Stripe holds its billing. */
interface FlowEvents {
  body(stripeCustomerId: string, index: number): unknown;
  billed(stripe: Awaited<ReturnType<typeof startStripeEmulator>>, stripeCustomerId: string): number;
}
const flowEvents: Partial<Record<FlowName, FlowEvents>> = {
  "payment-intent": {
    body: (customer, index) => ({ customerId: `acme-${index}`, stripeCustomerId: customer, paymentMethodId: "pm_card_visa", billingPeriod: "2026-11", amountCents: 1_000 + index, currency: "usd" }),
    billed: (stripe, customer) => stripe.ledger.paymentIntents(customer).length,
  },
  invoice: {
    body: (customer, index) => ({
      usageId: `usage-${index}`,
      stripeCustomerId: customer,
      day: "2026-11-02",
      currency: "usd",
      lines: [{ amountCents: 700 + index, description: "API calls" }, { amountCents: 300, description: "storage" }],
    }),
    billed: (stripe, customer) => stripe.ledger.invoices(customer).filter((invoice) => invoice.status === "paid").length,
  },
};

const ofType = (plan: Plan, type: string) => plan.mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
const rightOfRole: Record<string, "Listen" | "Send"> = { [builtInRoles.serviceBusDataReceiver]: "Listen", [builtInRoles.serviceBusDataSender]: "Send" };

/** The queue as BillingQueue deploys it, read back from the plan's inputs. */
function deployedQueue(inputs: Record<string, unknown>): EmulatedQueueOptions {
  return {
    lockDurationMs: parseIsoDuration(String(inputs.lockDuration)),
    maxDeliveryCount: Number(inputs.maxDeliveryCount),
    defaultTtlMs: parseIsoDuration(String(inputs.defaultMessageTimeToLive)),
    ...(inputs.requiresDuplicateDetection === true ? { duplicateDetectionWindowMs: parseIsoDuration(String(inputs.duplicateDetectionHistoryTimeWindow)) } : {}),
    deadLetteringOnMessageExpiration: inputs.deadLetteringOnMessageExpiration === true,
  };
}

/** What the planned app needs to run one queue's consumer here. */
function plannedApp(plan: Plan, queueName: string) {
  const queue = ofType(plan, "servicebus:Queue").find((r) => r.inputs.queueName === queueName);
  const consumer = plan.config.app?.consumers.find((c) => c.queue === queueName);
  const app = ofType(plan, "app:ContainerApp").find((r) => r.inputs.containerAppName === consumer?.appName);
  const identity = ofType(plan, "managedidentity:UserAssignedIdentity").find((r) => r.inputs.resourceName === consumer?.identityName);
  if (!queue || !app || !identity) throw new Error(`stack ${plan.report.stack} plans no app, identity or queue for ${queueName}`);
  const grants = ofType(plan, "authorization:RoleAssignment").filter((r) => r.inputs.principalId === identity.state.principalId && r.inputs.scope === queue.id);
  const rights = [...new Set(grants.map((grant) => rightOfRole[String(grant.inputs.roleDefinitionId).split("/").pop() ?? ""]).filter((right) => right !== undefined))];
  const template = app.inputs.template as { containers: { env: { name: string; value?: string; secretRef?: string }[] }[] };
  const env = Object.fromEntries((template.containers[0]?.env ?? []).map((entry) => [entry.name, entry.value ?? `secretRef:${entry.secretRef}`]));
  return { queue: deployedQueue(queue.inputs), rights, env };
}

const flowOf = (plan: Plan, queueName: string): FlowName => plan.config.queues.find((queue) => queue.name === queueName)?.flow ?? "payment-intent";

/** The generated consumer of the queue's flow, built, with the queue-budget.json `chargeguard new consumer --stack --queue` writes. */
async function generatedConsumerFor(plan: Plan, queueName: string): Promise<string> {
  // Inside the checkout, so the build's `chargeguard/...` imports resolve to this checkout (the package's own name).
  const directory = await mkdtemp(path.join(checkout, "dist", ".stack-consumer-"));
  await cp(builtConsumerOf(flowOf(plan, queueName)), directory, { recursive: true });
  const budget = plan.config.queues.find((queue) => queue.name === queueName)?.budget;
  if (!budget) throw new Error(`no budget for ${queueName}`);
  await writeFile(path.join(directory, "queue-budget.json"), renderQueueBudget(queueBudgetFile(queueName, { stack: plan.report.stack, configFile: plan.file, budget })));
  return directory;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const probe = async (port: number, path: string) => (await fetch(`http://127.0.0.1:${port}${path}`).catch(() => undefined))?.status;

function run(directory: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [path.join(directory, "main.js"), ...args], { cwd: directory, env });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function billsThrough(plan: Plan, queueName: string): Promise<void> {
  const planned = plannedApp(plan, queueName);
  const flow = flowEvents[flowOf(plan, queueName)];
  if (!flow) throw new Error(`no events written for the ${flowOf(plan, queueName)} flow in this test`);
  expect(planned.rights.sort()).toEqual(["Listen", "Send"]);
  const serviceBus = await startServiceBusEmulator({
    queues: { [queueName]: planned.queue },
    authorizationRules: { app: { queue: queueName, rights: planned.rights } },
  });
  const stripeEmulator = await startStripeEmulator();
  const client = new ServiceBusClient(serviceBus.connectionString);
  const directory = await generatedConsumerFor(plan, queueName);
  try {
    const passedThrough = Object.fromEntries(Object.entries(planned.env).filter(([name]) => !azureOnly.has(name)));
    expect(planned.env.HEALTH_PORT).toBe("8080");
    const healthPort = await freePort();
    const env = {
      ...userEnv,
      ...passedThrough,
      HEALTH_PORT: String(healthPort),
      SERVICEBUS_CONNECTION_STRING: serviceBus.connectionStringFor("app"),
      STRIPE_API_KEY: "rk_test_sandbox",
      STRIPE_API_BASE: stripeEmulator.apiBase,
    };
    expect(passedThrough).toMatchObject({ SERVICEBUS_QUEUE: queueName, MAX_CONCURRENT_CALLS: expect.any(String), STRIPE_REQUESTS_PER_SECOND: expect.any(String) });

    // What --print-settings says npm start would refuse: nothing.
    const printed = run(directory, ["--print-settings"], env);
    expect(await printed.exited).toBe(0);
    expect(JSON.parse(printed.output()).problems).toEqual([]);

    const consumer = run(directory, [], env);
    // The probes the plan gives the app: ready once it reached the queue, the database and its Stripe key; live.
    const readyBy = Date.now() + 60_000;
    while ((await probe(healthPort, "/ready")) !== 200) {
      if (Date.now() > readyBy || consumer.child.exitCode !== null) throw new Error(`never ready; output:\n${consumer.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([await probe(healthPort, "/startup"), await probe(healthPort, "/live")]).toEqual([200, 200]);
    const stripe = new Stripe("rk_test_sandbox", stripeEmulator.stripeConfig);
    const customers = await Promise.all(Array.from({ length: events }, () => stripe.customers.create({ invoice_settings: { default_payment_method: "pm_card_visa" } })));
    await client.createSender(queueName).sendMessages(
      customers.map((customer, index) => ({
        messageId: `${plan.report.stack}-${queueName}-${index}`,
        body: flow.body(customer.id, index),
      })),
    );
    const deadline = Date.now() + 90_000;
    while (customers.some((customer) => flow.billed(stripeEmulator, customer.id) === 0)) {
      if (Date.now() > deadline || consumer.child.exitCode !== null) throw new Error(`stack ${plan.report.stack}, queue ${queueName}: not every event billed; output:\n${consumer.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    consumer.child.kill("SIGTERM");
    expect(await consumer.exited).toBe(0);
    expect(customers.map((customer) => flow.billed(stripeEmulator, customer.id))).toEqual(customers.map(() => 1));
    expect(serviceBus.counts(queueName)).toMatchObject({ active: 0, locked: 0, deadLettered: 0 });
  } finally {
    await client.close();
    await serviceBus.stop();
    await stripeEmulator.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

describe.each(["dev", "prod"])("the %s stack's consumers, run with their app's planned environment", (stack) => {
  it("start, and bill every event of every queue once through the sandbox", async () => {
    await ensureBuilt();
    const plan = await planStack({ stack, cwd: checkout });
    expect(plan.report.violations.filter((violation) => violation.level === "mandatory")).toEqual([]);
    const queues = plan.config.queues.map((queue) => queue.name);
    expect(plan.config.app?.consumers.map((consumer) => consumer.queue).sort()).toEqual([...queues].sort());
    for (const queue of queues) await billsThrough(plan, queue);
  }, 300_000);
});

describe("a stack whose queue is billed through the invoice flow (test/fixtures/stacks/Pulumi.invoicing.yaml)", () => {
  it("is tuned for the flow's 23 Stripe calls, and its generated invoice consumer starts and bills every invoice once", async () => {
    await ensureBuilt();
    const plan = await planStack({ configFile: invoicingStack, cwd: checkout });
    expect(plan.report.violations.filter((violation) => violation.level === "mandatory")).toEqual([]);
    const [queue] = plan.config.queues;
    const [app] = plan.config.app?.consumers ?? [];
    if (!queue || !app) throw new Error("the invoicing stack has no queue or app");
    expect(queue.flow).toBe("invoice");
    expect(queue.budget.concurrency).toEqual({ maxConcurrentCalls: 2, maxConcurrentStripeCalls: 1, stripeCallsPerMessage: flowStripeCalls.invoice });
    // 23 calls x a 6 s delivery budget, doubled for the wait for the one Stripe slot: 276 s, in one 5 min lock.
    expect([queue.tuning.messageHoldMs, queue.tuning.lockDuration, queue.tuning.consumer.maxAutoLockRenewalDurationInMs]).toEqual([276_000, "PT5M", 0]);
    expect(app.bounds.terminationGracePeriodSeconds).toBe(276);
    expect(plan.report.queues[0]).toMatchObject({ flow: "invoice", stripeCallsPerMessage: 23, lockDuration: "PT5M" });
    await billsThrough(plan, queue.name);
  }, 300_000);

  it("tuned as one Stripe call (the old figure), is what the generated invoice consumer refuses, naming the hold", async () => {
    await ensureBuilt();
    const plan = await planStack({ configFile: invoicingStack, cwd: checkout });
    const queue = plan.config.queues[0];
    if (!queue?.budget.concurrency) throw new Error("the invoicing stack's queue has no concurrency");
    // What the stack deployed before it counted the flow's calls: one delivery budget a call, 12 s held in all.
    const { stripeCallsPerMessage: _calls, ...oneCall } = queue.budget.concurrency;
    const oldBudget = { ...queue.budget, concurrency: oneCall };
    const directory = await mkdtemp(path.join(checkout, "dist", ".stack-consumer-"));
    try {
      await cp(builtConsumerOf("invoice"), directory, { recursive: true });
      await writeFile(path.join(directory, "queue-budget.json"), renderQueueBudget(queueBudgetFile(queue.name, { stack: plan.report.stack, configFile: plan.file, budget: oldBudget })));
      const planned = plannedApp(plan, queue.name);
      const passedThrough = Object.fromEntries(Object.entries(planned.env).filter(([name]) => !azureOnly.has(name)));
      const env = { ...userEnv, ...passedThrough, SERVICEBUS_CONNECTION_STRING: "Endpoint=sb://127.0.0.1:9;SharedAccessKeyName=app;SharedAccessKey=a2V5;UseDevelopmentEmulator=true", STRIPE_API_KEY: "rk_test_sandbox" };
      const printed = run(directory, ["--print-settings"], env);
      expect(await printed.exited).toBe(0);
      const settings = JSON.parse(printed.output()) as { tuning: { lockDurationMs: number }; problems: string[] };
      // The old lock: PT30S for a 12 s hold, where the invoice consumer may hold a message 276 s.
      expect(settings.tuning.lockDurationMs).toBe(30_000);
      expect(settings.problems).toEqual([expect.stringContaining("with 2 messages in flight for 1 Stripe calls a message may be held 276000 ms (a wait for a slot plus its own delivery) but the lock covers 30000 ms")]);
      const started = run(directory, [], env);
      expect(await started.exited).toBe(2);
      expect(started.output()).toContain(settings.problems[0]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("a queue tuned for one message at a time, with the dev stack's pipelined app", () => {
  it("is what --print-settings reports and npm start refuses, with the same sentence", async () => {
    await ensureBuilt();
    const plan = await planStack({ stack: "dev", cwd: checkout });
    const queue = plan.config.queues[0];
    if (!queue) throw new Error("the dev stack has no queue");
    // The budget without the app's concurrency: what every stack deployed before the lock covered the wait for a slot.
    const { concurrency: _pipelined, ...serialBudget } = queue.budget;
    const directory = await mkdtemp(path.join(checkout, "dist", ".stack-consumer-"));
    try {
      await cp(builtConsumer, directory, { recursive: true });
      await writeFile(path.join(directory, "queue-budget.json"), renderQueueBudget(queueBudgetFile(queue.name, { stack: "dev", configFile: plan.file, budget: serialBudget })));
      const planned = plannedApp(plan, queue.name);
      const passedThrough = Object.fromEntries(Object.entries(planned.env).filter(([name]) => !azureOnly.has(name)));
      // Nothing listens here: the consumer must refuse before it connects.
      const env = { ...userEnv, ...passedThrough, SERVICEBUS_CONNECTION_STRING: "Endpoint=sb://127.0.0.1:9;SharedAccessKeyName=app;SharedAccessKey=a2V5;UseDevelopmentEmulator=true", STRIPE_API_KEY: "rk_test_sandbox" };
      const printed = run(directory, ["--print-settings"], env);
      expect(await printed.exited).toBe(0);
      const problems = JSON.parse(printed.output()).problems as string[];
      expect(problems).toEqual([expect.stringContaining("with 4 messages in flight for 2 Stripe calls a message may be held 207000 ms")]);
      const started = run(directory, [], env);
      expect(await started.exited).toBe(2);
      expect(started.output()).toContain(problems[0]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
