// The generated consumer's telemetry when generated with `--telemetry otlp` (templates/files/telemetry/otlp's
// src/telemetry.ts) with OpenTelemetry's real OTLP/HTTP exporters and SDK, against a local OTLP receiver on 127.0.0.1
// started here: what the runtime reports through @opentelemetry/api (its billing outcomes counter, a process span)
// arrives at OTEL_EXPORTER_OTLP_ENDPOINT's /v1/metrics and /v1/traces, named by service and replica, the charges
// counted as reported; http/protobuf (the default) and http/json; grpc refused by name; no endpoint: nothing starts.
// Before this choice existed, the template exported to Application Insights only and ignored the endpoint (0 posts).
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { attributeNames, meterName, metricNames } from "../../runtime/telemetry/metric-names.js";
import { startTelemetry } from "../../templates/files/telemetry/otlp/src/telemetry.js";
import { startTelemetry as startNone } from "../../templates/files/telemetry/none/src/telemetry.js";
import { resourceAttribute, startOtlpReceiver, sumOf, type OtlpReceiver } from "../support/otlp-receiver.js";

let receiver: OtlpReceiver;
let endpoint: string;
let posts: OtlpReceiver["posts"];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  endpoint = receiver.endpoint;
  posts = receiver.posts;
});

afterEach(() => {
  // Each start registers the global providers: clear them so the next start registers its own.
  for (const api of [metrics, trace, context, propagation]) api.disable();
  posts.length = 0;
  vi.unstubAllEnvs();
});

afterAll(async () => {
  await receiver?.stop();
});

/** The exporters read the specification's variables from the process, as the SDK does: stubbed, never assigned. */
function otlpEnvironment(values: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
  return values;
}

/** What chargeguard's runtime does: report through the API only, `charges` charged outcomes and a process span each. */
function reportBillings(charges: number): void {
  const outcomes = metrics.getMeter(meterName).createCounter(metricNames.outcomes);
  for (let index = 0; index < charges; index++) {
    outcomes.add(1, { [attributeNames.outcome]: "charged" });
    trace.getTracer(meterName).startActiveSpan("process usage-billing", (span) => span.end());
  }
  outcomes.add(1, { [attributeNames.outcome]: "declined" });
}

const posted = (suffix: string) => posts.filter((post) => post.path === suffix);

describe("the generated consumer's telemetry export, --telemetry otlp", () => {
  it("sends the billing outcomes (charges counted) and spans to OTEL_EXPORTER_OTLP_ENDPOINT over http/json, named by service and replica", async () => {
    const env = otlpEnvironment({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_METRIC_EXPORT_INTERVAL: "600000",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
      CONTAINER_APP_REPLICA_NAME: "usage-billing-consumer--r1-abc",
    });
    const telemetry = await startTelemetry(env, "usage-billing-consumer");
    expect(telemetry).toMatchObject({ kind: "otlp", destination: "OTLP (http/json)" });
    reportBillings(7);
    expect(await telemetry?.shutdown()).toEqual([]);

    const [sent, ...more] = receiver.jsonMetrics();
    expect(more).toEqual([]);
    expect(["service.name", "service.instance.id", "deployment.environment"].map((key) => resourceAttribute(sent, key))).toEqual(["usage-billing-consumer", "usage-billing-consumer--r1-abc", "test"]);
    expect(sent && [sumOf(sent, metricNames.outcomes, attributeNames.outcome, "charged"), sumOf(sent, metricNames.outcomes, attributeNames.outcome, "declined")]).toEqual([7, 1]);
    const spans = posted("/v1/traces").map((post) => post.body.toString("utf8")).join("");
    expect(spans.match(/"name":"process usage-billing"/g)?.length).toBe(7);
  });

  it("speaks http/protobuf by default, the specification's default protocol", async () => {
    const env = otlpEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: "billing-proto" });
    const telemetry = await startTelemetry(env);
    expect(telemetry?.destination).toBe("OTLP (http/protobuf)");
    reportBillings(2);
    expect(await telemetry?.shutdown()).toEqual([]);
    const [metricsPost] = posted("/v1/metrics");
    expect(metricsPost?.contentType).toBe("application/x-protobuf");
    expect(metricsPost?.body.includes(metricNames.outcomes)).toBe(true);
    expect(metricsPost?.body.includes("billing-proto")).toBe(true);
    expect(posted("/v1/traces")[0]?.contentType).toBe("application/x-protobuf");
  });

  it("refuses grpc by name (a configuration error: exit 2), and starts nothing without an endpoint or with OTEL_SDK_DISABLED=true", async () => {
    await expect(startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).rejects.toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (this project installs the OTLP/HTTP exporters only), got "grpc"',
    );
    expect(await startTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: "InstrumentationKey=x" })).toBeUndefined();
    expect(await startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: "true" })).toBeUndefined();
    reportBillings(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(posts).toEqual([]);
  });
});

describe("the generated consumer's telemetry export, --telemetry none", () => {
  it("starts nothing even with an endpoint and a connection string set, and sends nothing", async () => {
    expect(await startNone({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, APPLICATIONINSIGHTS_CONNECTION_STRING: "InstrumentationKey=x" })).toBeUndefined();
    reportBillings(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(posts).toEqual([]);
  });
});
