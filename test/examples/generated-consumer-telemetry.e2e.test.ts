// The generated consumer, built (`npm run build`) and started as `npm start` starts it, with
// APPLICATIONINSIGHTS_CONNECTION_STRING naming a local ingestion endpoint (Application Insights' track API on
// 127.0.0.1: test/support/appinsights-ingestion.ts; no AZURE_CLIENT_ID, so no Entra token:
// test/templates/telemetry-export.test.ts covers that): it exports chargeguard's metrics and spans, names its service and replica, and flushes on SIGTERM (the
// metric interval is ten minutes, so only the shutdown flush can deliver the metrics). Without it, it exports nothing.
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
import { startIngestion, type Ingestion } from "../support/appinsights-ingestion.js";
import { type BuiltConsumer, killRunning, startBuiltConsumer } from "../support/built-consumer.js";

const root = path.resolve(import.meta.dirname, "../..");
const main = path.join(root, "dist/examples/generated-consumer/src/main.js");
const queue = "usage-billing";

let serviceBus: ServiceBusEmulator;
let stripe: StripeEmulator;
let ingestion: Ingestion;
let workDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does)`);
  [serviceBus, stripe] = await Promise.all([
    startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: 30_000, maxDeliveryCount: 10 } } }),
    startStripeEmulator({}),
  ]);
  ingestion = await startIngestion();
  workDir = await mkdtemp(path.join(tmpdir(), "chargeguard-telemetry-"));
});

/** A consumer a failed test left running is stopped before the next one starts (it would hold its data directory). */
afterEach(() => killRunning(children));

afterAll(async () => {
  await ingestion?.stop();
  await Promise.all([serviceBus?.stop(), stripe?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Start-up under a loaded machine (its embedded database initialised, the telemetry SDK loaded) can take a while. */
const startUpMs = 75_000;

async function startConsumer(name: string, telemetryEnv: Record<string, string>): Promise<BuiltConsumer> {
  const run = await startBuiltConsumer(main, path.join(workDir, name), {
    SERVICEBUS_CONNECTION_STRING: serviceBus.connectionString,
    SERVICEBUS_QUEUE: queue,
    STRIPE_API_KEY: "rk_test_sandbox",
    STRIPE_API_BASE: stripe.apiBase,
    // The exporter's own usage statistics would go to Microsoft: only loopback in tests. The stand-in's
    // certificate is self-signed.
    APPLICATIONINSIGHTS_STATSBEAT_DISABLED: "true",
    NODE_TLS_REJECT_UNAUTHORIZED: "0",
    ...telemetryEnv,
  });
  children.push(run.child);
  return run;
}

async function sendEvent(messageId: string): Promise<string> {
  const admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
  const customer = await admin.customers.create({ name: "telemetry" });
  const client = new ServiceBusClient(serviceBus.connectionString);
  try {
    await client.createSender(queue).sendMessages({
      messageId,
      body: { customerId: `acct-${customer.id}`, stripeCustomerId: customer.id, paymentMethodId: "pm_card_visa", billingPeriod: "2033-01", amountCents: 1_200, currency: "usd" },
      applicationProperties: { "Diagnostic-Id": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
  } finally {
    await client.close();
  }
  return customer.id;
}

const metricsNamed = (name: string) => ingestion.metricsNamed(name);

describe("generated consumer telemetry export", () => {
  it("exports metrics and spans to Application Insights when APPLICATIONINSIGHTS_CONNECTION_STRING is set, and flushes them on SIGTERM", async () => {
    const run = await startConsumer("appinsights", {
      APPLICATIONINSIGHTS_CONNECTION_STRING: ingestion.connectionString,
      OTEL_METRIC_EXPORT_INTERVAL: "600000",
      OTEL_SERVICE_NAME: "billing-telemetry-test",
    });
    await expect.poll(run.output, { timeout: startUpMs }).toMatch(/consuming usage-billing/);
    expect(run.output()).toMatch(/telemetry: exporting to Azure Monitor \(connection string only\)/);
    const customer = await sendEvent("telemetry-1");
    await expect.poll(() => stripe.ledger.paymentIntents(customer).length, { timeout: 30_000 }).toBe(1);
    await expect.poll(() => serviceBus.counts(queue).active + serviceBus.counts(queue).locked, { timeout: 30_000 }).toBe(0);
    expect(ingestion.items().filter((item) => item.data.baseType === "MetricData")).toHaveLength(0);

    run.child.kill("SIGTERM");
    expect(await run.exited, run.output()).toBe(0);

    const charged = metricsNamed("chargeguard.billing.outcomes").find((item) => item.data.baseData.properties?.["chargeguard.outcome"] === "charged");
    expect(charged?.data.baseData.metrics?.[0]?.value).toBe(1);
    expect(charged?.tags["ai.cloud.role"]).toBe("billing-telemetry-test");
    expect(charged?.tags["ai.cloud.roleInstance"]).toMatch(/^[0-9a-f-]{36}$/);
    for (const name of ["chargeguard.charged.amount", "chargeguard.stripe.request.duration", "messaging.process.duration"]) expect(metricsNamed(name).length, name).toBeGreaterThan(0);

    const spans = ingestion.items().filter((item) => item.data.baseType === "RequestData" || item.data.baseType === "RemoteDependencyData");
    // The consumer's process span is a request (span kind CONSUMER) carrying its messaging attributes.
    const process = spans.find((span) => span.data.baseType === "RequestData" && span.data.baseData.properties?.["messaging.destination.name"] === queue);
    expect(process?.data.baseData.properties?.["messaging.operation.name"]).toBe("process");
    const links = JSON.parse(process?.data.baseData.properties?.["_MS.links"] ?? "[]") as { operation_Id: string }[];
    expect(links[0]?.operation_Id.toLowerCase()).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(spans.map((span) => span.data.baseData.name)).toEqual(expect.arrayContaining(["chargeguard.claim", "stripe payment_intents.create", "chargeguard.mark_charged"]));
  }, 150_000);

  it("exports nothing without the connection string", async () => {
    const before = ingestion.items().length;
    const run = await startConsumer("plain", {});
    await expect.poll(run.output, { timeout: startUpMs }).toMatch(/consuming usage-billing/);
    const customer = await sendEvent("telemetry-2");
    await expect.poll(() => stripe.ledger.paymentIntents(customer).length, { timeout: 30_000 }).toBe(1);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.output()).not.toMatch(/telemetry:/);
    expect(ingestion.items().length).toBe(before);
  }, 150_000);
});
