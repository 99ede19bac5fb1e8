// The generated consumer, built (`npm run build`) and started as `npm start` starts it, with the standard OTLP
// variables pointing at a local OTLP/HTTP receiver: it exports chargeguard's metrics and spans, names its service
// and replica, and flushes on SIGTERM (the metric interval is ten minutes, so only the shutdown flush can deliver
// the metrics). Without the variables it exports nothing.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../sandbox/servicebus/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";

const root = path.resolve(import.meta.dirname, "../..");
const main = path.join(root, "dist/examples/generated-consumer/src/main.js");
const queue = "usage-billing";

/** What the receiver got: parsed OTLP/JSON bodies by path. */
interface Received {
  metrics: OtlpMetrics[];
  traces: OtlpTraces[];
}
type KeyValue = { key: string; value: { stringValue?: string; intValue?: string | number } };
type OtlpMetrics = {
  resourceMetrics: {
    resource: { attributes: KeyValue[] };
    scopeMetrics: { metrics: { name: string; sum?: { dataPoints: { asInt?: string | number; asDouble?: number; attributes: KeyValue[] }[] } }[] }[];
  }[];
};
type OtlpTraces = { resourceSpans: { scopeSpans: { spans: { name: string; links?: { traceId: string; spanId: string }[] }[] }[] }[] };

let serviceBus: ServiceBusEmulator;
let stripe: StripeEmulator;
let receiver: Server;
let endpoint: string;
let workDir: string;
const received: Received = { metrics: [], traces: [] };
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does)`);
  [serviceBus, stripe] = await Promise.all([
    startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: 30_000, maxDeliveryCount: 10 } } }),
    startStripeEmulator({}),
  ]);
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as unknown;
      if (request.url === "/v1/metrics") received.metrics.push(body as OtlpMetrics);
      if (request.url === "/v1/traces") received.traces.push(body as OtlpTraces);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  workDir = await mkdtemp(path.join(tmpdir(), "chargeguard-otlp-"));
});

/** A consumer a failed test left running is stopped before the next one starts (it would hold its data directory). */
afterEach(async () => {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all(running.map((child) => new Promise((resolve) => child.once("exit", resolve).kill("SIGKILL"))));
});

afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await Promise.all([serviceBus?.stop(), stripe?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Start-up under a loaded machine (its embedded database initialised, the telemetry SDK loaded) can take a while. */
const startUpMs = 75_000;

async function startConsumer(name: string, telemetryEnv: Record<string, string>): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  let output = "";
  // Its own directory: each consumer's embedded database (./.data) is its own.
  const cwd = path.join(workDir, name);
  await mkdir(cwd);
  const child = spawn(process.execPath, [main], {
    cwd,
    env: {
      PATH: process.env.PATH,
      SERVICEBUS_CONNECTION_STRING: serviceBus.connectionString,
      SERVICEBUS_QUEUE: queue,
      STRIPE_API_KEY: "rk_test_sandbox",
      STRIPE_API_BASE: stripe.apiBase,
      ...telemetryEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function sendEvent(messageId: string): Promise<string> {
  const admin = new Stripe("rk_test_sandbox", { ...stripe.stripeConfig, maxNetworkRetries: 0 });
  const customer = await admin.customers.create({ name: "otlp" });
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

const attribute = (attributes: KeyValue[], key: string) => attributes.find((a) => a.key === key)?.value.stringValue;

describe("generated consumer telemetry export", () => {
  it("exports metrics and spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, and flushes them on SIGTERM", async () => {
    const run = await startConsumer("otlp", {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_METRIC_EXPORT_INTERVAL: "600000",
      OTEL_SERVICE_NAME: "billing-otlp-test",
      OTEL_LOGS_EXPORTER: "none",
    });
    await expect.poll(run.output, { timeout: startUpMs }).toMatch(/consuming usage-billing/);
    expect(run.output()).toMatch(/telemetry: exporting to OTLP/);
    const customer = await sendEvent("otlp-1");
    await expect.poll(() => stripe.ledger.paymentIntents(customer).length, { timeout: 30_000 }).toBe(1);
    await expect.poll(() => serviceBus.counts(queue).active + serviceBus.counts(queue).locked, { timeout: 30_000 }).toBe(0);
    expect(received.metrics).toHaveLength(0);

    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);

    const [metrics] = received.metrics;
    const resource = metrics?.resourceMetrics[0]?.resource.attributes ?? [];
    expect(attribute(resource, "service.name")).toBe("billing-otlp-test");
    expect(attribute(resource, "service.instance.id")).toMatch(/^[0-9a-f-]{36}$/);
    const all = received.metrics.flatMap((body) => body.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)));
    const outcomes = all.find((metric) => metric.name === "chargeguard.billing.outcomes");
    const charged = outcomes?.sum?.dataPoints.find((point) => attribute(point.attributes, "chargeguard.outcome") === "charged");
    expect(Number(charged?.asInt ?? charged?.asDouble)).toBe(1);
    expect(all.map((metric) => metric.name)).toEqual(expect.arrayContaining(["chargeguard.charged.amount", "chargeguard.stripe.request.duration", "messaging.process.duration"]));

    const spans = received.traces.flatMap((body) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    const process = spans.find((span) => span.name === `process ${queue}`);
    expect(process?.links?.[0]?.traceId.toLowerCase()).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(spans.map((span) => span.name)).toEqual(expect.arrayContaining(["chargeguard.claim", "stripe payment_intents.create", "chargeguard.mark_charged"]));
  }, 150_000);

  it("exports nothing without the variables", async () => {
    const before = received.metrics.length + received.traces.length;
    const run = await startConsumer("plain", {});
    await expect.poll(run.output, { timeout: startUpMs }).toMatch(/consuming usage-billing/);
    const customer = await sendEvent("otlp-2");
    await expect.poll(() => stripe.ledger.paymentIntents(customer).length, { timeout: 30_000 }).toBe(1);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.output()).not.toMatch(/telemetry:/);
    expect(received.metrics.length + received.traces.length).toBe(before);
  }, 150_000);
});
