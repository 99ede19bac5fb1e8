// The generated consumer's telemetry (templates/files/consumer/src/telemetry.ts, as regenerated into
// examples/generated-consumer) with the real Azure Monitor exporter and OpenTelemetry SDK, against local stand-ins on
// 127.0.0.1: an Application Insights ingestion endpoint (https, a throwaway self-signed certificate: the exporter
// sends Entra tokens over TLS only) and a managed identity endpoint as Container Apps exposes it (IDENTITY_ENDPOINT,
// IDENTITY_HEADER). What the runtime reports through @opentelemetry/api reaches ingestion with the service's name and
// replica; with AZURE_CLIENT_ID the identity endpoint is asked for a Monitor token for that client id and ingestion
// receives it as a bearer token; without a connection string nothing starts and no endpoint is asked anything.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startTelemetry } from "../../examples/generated-consumer/src/telemetry.js";
import { startIngestion, type Ingestion } from "../support/appinsights-ingestion.js";

const tokenRequests: URL[] = [];
let ingestion: Ingestion;
let identity: Server;
let connectionString: string;

beforeAll(async () => {
  ingestion = await startIngestion();
  connectionString = ingestion.connectionString;
  identity = createServer((request, response) => {
    tokenRequests.push(new URL(request.url ?? "/", "http://127.0.0.1"));
    const expiresOn = Math.floor(Date.now() / 1000) + 3600;
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: "monitor-token", expires_on: String(expiresOn), resource: "https://monitor.azure.com", token_type: "Bearer" }));
  });
  await new Promise<void>((resolve) => identity.listen(0, "127.0.0.1", resolve));
  // Read by the managed identity client when it is asked for a token (Container Apps sets both in the container).
  // Stubbed, never assigned: unit files share a worker's process (isolate: false), and a replaced process.env
  // outlives this file (vi.unstubAllEnvs restores the real one).
  vi.stubEnv("IDENTITY_ENDPOINT", `http://127.0.0.1:${(identity.address() as AddressInfo).port}/msi/token`);
  vi.stubEnv("IDENTITY_HEADER", "local-identity-header");
  // The stand-in's certificate is self-signed; the exporter's own usage statistics would go to Microsoft: off here.
  vi.stubEnv("NODE_TLS_REJECT_UNAUTHORIZED", "0");
  vi.stubEnv("APPLICATIONINSIGHTS_STATSBEAT_DISABLED", "true");
});

afterEach(() => {
  // Each start registers the global providers: clear them so the next start registers its own.
  for (const api of [metrics, trace, context, propagation]) api.disable();
  ingestion.posts.length = 0;
  tokenRequests.length = 0;
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all([ingestion?.stop(), new Promise((resolve) => identity?.close(resolve))]);
});

/**
 * What chargeguard's runtime does: report through the API only (a counter and a span). The sampler allows five traces
 * a second, accrued from its start: a span begun within 200 ms of it may be sampled out, so the billing comes later.
 */
async function reportOneBilling(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  metrics.getMeter("chargeguard").createCounter("chargeguard.billing.outcomes").add(1, { "chargeguard.outcome": "charged" });
  trace.getTracer("chargeguard").startActiveSpan("process usage-billing", (span) => span.end());
}

const items = () => ingestion.items();
const ingested = () => ingestion.posts;

describe("the generated consumer's telemetry export", () => {
  it("sends the runtime's metrics and spans to Application Insights, named by service and replica, on shutdown", async () => {
    const env: Record<string, string | undefined> = {
      APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString,
      OTEL_METRIC_EXPORT_INTERVAL: "600000",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
      CONTAINER_APP_REPLICA_NAME: "usage-billing-consumer--r1-abc",
    };
    const telemetry = await startTelemetry(env, "usage-billing-consumer");
    expect(telemetry).toMatchObject({ kind: "azure-monitor", entra: false });
    await reportOneBilling();
    await telemetry?.shutdown();

    const [metric] = ingestion.metricsNamed("chargeguard.billing.outcomes");
    expect(metric?.data.baseData.metrics?.[0]?.value).toBe(1);
    expect(metric?.tags["ai.cloud.role"]).toBe("usage-billing-consumer");
    expect(metric?.tags["ai.cloud.roleInstance"]).toBe("usage-billing-consumer--r1-abc");
    const span = items().find((item) => item.data.baseData.name === "process usage-billing");
    expect(span?.data.baseType).toBe("RemoteDependencyData");
    // No identity named: the connection string alone, no token asked for.
    expect(ingested().every((post) => post.authorization === undefined)).toBe(true);
    expect(tokenRequests).toEqual([]);
  });

  it("signs in with Entra ID as AZURE_CLIENT_ID's managed identity when it is set", async () => {
    const env = { APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString, AZURE_CLIENT_ID: "11111111-2222-3333-4444-555555555555", OTEL_SERVICE_NAME: "billing-entra" };
    const telemetry = await startTelemetry(env);
    expect(telemetry).toMatchObject({ kind: "azure-monitor", entra: true });
    await reportOneBilling();
    await telemetry?.shutdown();

    expect(tokenRequests.length).toBeGreaterThan(0);
    expect(tokenRequests[0]?.searchParams.get("client_id")).toBe("11111111-2222-3333-4444-555555555555");
    expect(tokenRequests[0]?.searchParams.get("resource")).toMatch(/^https:\/\/monitor\.azure\.com/);
    expect(ingested().length).toBeGreaterThan(0);
    expect(ingested().every((post) => post.authorization === "Bearer monitor-token")).toBe(true);
    expect(ingestion.metricsNamed("chargeguard.billing.outcomes")[0]?.tags["ai.cloud.role"]).toBe("billing-entra");
  });

  it("starts nothing and asks no identity endpoint without a connection string, or when OTEL_SDK_DISABLED=true", async () => {
    expect(await startTelemetry({ AZURE_CLIENT_ID: "11111111-2222-3333-4444-555555555555" })).toBeUndefined();
    expect(await startTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString, OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
    await reportOneBilling();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ingested()).toEqual([]);
    expect(tokenRequests).toEqual([]);
  });
});
