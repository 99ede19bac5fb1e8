// examples/generated-consumer-otlp (`chargeguard new consumer --telemetry otlp`), built and started as `npm start`
// starts it against the emulators, with OTEL_EXPORTER_OTLP_ENDPOINT naming a local OTLP/HTTP receiver on 127.0.0.1
// (test/support/otlp-receiver.ts): after four messages (three customers, one of them sent twice under a new message
// id) and SIGTERM, the billing outcomes it exported count as many charges as Stripe holds PaymentIntents, the
// duplicate prevented, and its process spans arrived; the metric interval is ten minutes, so only the shutdown flush
// can deliver the metrics. Before `--telemetry`, a generated consumer ignored the endpoint and sent nothing (0 of 192
// charges in the check). An Application Insights connection string alone makes it send nothing.
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../sandbox/servicebus/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";
import { killRunning, startBuiltConsumer } from "../support/built-consumer.js";
import { resourceAttribute, startOtlpReceiver, sumOf, type OtlpReceiver } from "../support/otlp-receiver.js";

const root = path.resolve(import.meta.dirname, "../..");
const main = path.join(root, "dist/examples/generated-consumer-otlp/src/main.js");
const queue = "usage-billing";
const outcomes = "chargeguard.billing.outcomes";

let serviceBus: ServiceBusEmulator;
let stripe: StripeEmulator;
let receiver: OtlpReceiver;
let workDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does)`);
  [serviceBus, stripe, receiver] = await Promise.all([
    startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: 30_000, maxDeliveryCount: 10 } } }),
    startStripeEmulator({}),
    startOtlpReceiver(),
  ]);
  workDir = await mkdtemp(path.join(tmpdir(), "chargeguard-otlp-"));
});

afterEach(() => killRunning(children));

afterAll(async () => {
  await Promise.all([serviceBus?.stop(), stripe?.stop(), receiver?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Start-up under a loaded machine (its embedded database initialised, the telemetry SDK loaded) can take a while. */
const startUpMs = 75_000;

async function startConsumer(name: string, telemetryEnv: Record<string, string>) {
  const env = { SERVICEBUS_CONNECTION_STRING: serviceBus.connectionString, SERVICEBUS_QUEUE: queue, STRIPE_API_KEY: "rk_test_sandbox", STRIPE_API_BASE: stripe.apiBase };
  const run = await startBuiltConsumer(main, path.join(workDir, name), { ...env, ...telemetryEnv });
  children.push(run.child);
  return run;
}

/** Usage events for new customers, the first of them sent a second time under another message id (a resubmission). */
async function sendEvents(prefix: string, customers: number): Promise<string[]> {
  const admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
  const ids: string[] = [];
  for (let index = 0; index < customers; index++) ids.push((await admin.customers.create({ name: `${prefix}-${index}` })).id);
  const client = new ServiceBusClient(serviceBus.connectionString);
  try {
    const event = (id: string) => ({ customerId: `acct-${id}`, stripeCustomerId: id, paymentMethodId: "pm_card_visa", billingPeriod: "2033-02", amountCents: 1_200, currency: "usd" });
    const messages = ids.map((id, index) => ({ messageId: `${prefix}-${index}`, body: event(id) }));
    await client.createSender(queue).sendMessages([...messages, { messageId: `${prefix}-0-again`, body: event(ids[0] ?? "") }]);
  } finally {
    await client.close();
  }
  return ids;
}

describe("generated consumer, --telemetry otlp", () => {
  it("exports its billing outcomes to OTEL_EXPORTER_OTLP_ENDPOINT, charges equal to Stripe's PaymentIntents, and flushes on SIGTERM", async () => {
    const run = await startConsumer("otlp", {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_METRIC_EXPORT_INTERVAL: "600000",
      OTEL_SERVICE_NAME: "billing-otlp-test",
    });
    await expect.poll(run.output, { timeout: startUpMs }).toMatch(/consuming usage-billing/);
    expect(run.output()).toMatch(/telemetry: exporting to OTLP \(http\/json\)/);
    const customers = await sendEvents("otlp", 3);
    await expect.poll(() => serviceBus.counts(queue).active + serviceBus.counts(queue).locked, { timeout: 60_000 }).toBe(0);
    const atStripe = customers.reduce((sum, customer) => sum + stripe.ledger.paymentIntents(customer).length, 0);
    expect(atStripe).toBe(3);
    expect(receiver.jsonMetrics()).toEqual([]);

    run.child.kill("SIGTERM");
    expect(await run.exited, run.output()).toBe(0);

    const exports = receiver.jsonMetrics().filter((exported) => JSON.stringify(exported).includes(outcomes));
    const last = exports.at(-1);
    expect(last && sumOf(last, outcomes, "chargeguard.outcome", "charged")).toBe(atStripe);
    expect(resourceAttribute(last, "service.name")).toBe("billing-otlp-test");
    expect(resourceAttribute(last, "service.instance.id")).toMatch(/^[0-9a-f-]{36}$/);
    const spans = receiver.posts.filter((post) => post.path === "/v1/traces").map((post) => post.body.toString("utf8")).join("");
    expect(spans).toContain('"name":"process usage-billing"');
  }, 180_000);

  it("sends nothing with an Application Insights connection string alone", async () => {
    const before = receiver.posts.length;
    const run = await startConsumer("appinsights-only", { APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=${receiver.endpoint}/` });
    await expect.poll(run.output, { timeout: startUpMs }).toMatch(/consuming usage-billing/);
    const [customer] = await sendEvents("plain", 1);
    await expect.poll(() => stripe.ledger.paymentIntents(customer ?? "").length, { timeout: 30_000 }).toBe(1);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.output()).not.toMatch(/telemetry:/);
    expect(receiver.posts.length).toBe(before);
  }, 150_000);
});
