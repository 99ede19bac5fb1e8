// Telemetry export over OTLP (an OpenTelemetry Collector, Grafana Alloy, the Datadog Agent, any OTLP endpoint), off
// unless an OTLP endpoint is set. chargeguard's runtime reports through the OpenTelemetry API only (its own spans and
// metrics); this registers the two SDK pieces those need, a tracer provider and a meter provider, each with
// OpenTelemetry's own OTLP/HTTP exporter, before the consumer starts (so the runtime's instruments land in them).
// The exporters and the SDK read the specification's variables themselves:
//   OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _METRICS_ENDPOINT)  where to send; none set
//                                         (or OTEL_SDK_DISABLED=true): no SDK, no export
//   OTEL_EXPORTER_OTLP_PROTOCOL (and _TRACES_ / _METRICS_)  http/protobuf (the default) or http/json; grpc is not
//                                         installed: exit 2 at start, naming it
//   OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, OTEL_TRACES_SAMPLER, OTEL_SERVICE_NAME,
//   OTEL_RESOURCE_ATTRIBUTES, OTEL_METRIC_EXPORT_INTERVAL (ms, default 60000), as the specification says.
// Each replica reports its own service.instance.id (CONTAINER_APP_REPLICA_NAME, else a UUID) unless one is named.
import { randomUUID } from "node:crypto";
import { ConfigurationError } from "chargeguard/runtime";

export interface TelemetryExport {
  kind: "otlp";
  /** Where it exports, for the start-up log line. */
  destination: string;
  /**
   * Flushes what is buffered (the last metrics and spans), then stops the SDK. Resolves with what could not be sent
   * (an unreachable or refusing endpoint): losing telemetry never fails the consumer's exit.
   */
  shutdown(): Promise<string[]>;
}

type Env = Record<string, string | undefined>;
type Protocol = "http/protobuf" | "http/json";

const DEFAULT_METRIC_INTERVAL_MS = 60_000;
const SIGNAL_ENDPOINTS = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"];

/**
 * Starts the SDK when the environment names an OTLP endpoint; undefined when it does not (then nothing is imported).
 * `env`: the process's environment as chargeguard's one reader hands it (main.ts), or a test's own; the exporters
 * read their own variables from the process's environment, as the SDK does everywhere.
 */
export async function startTelemetry(env: Env, defaultServiceName = "billing-consumer"): Promise<TelemetryExport | undefined> {
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  if (!SIGNAL_ENDPOINTS.some((name) => value(env, name) !== undefined)) return undefined;
  const tracesProtocol = protocol(env, "TRACES");
  const metricsProtocol = protocol(env, "METRICS");

  const [{ metrics }, { defaultResource, detectResources, envDetector, resourceFromAttributes }, sdkMetrics, { NodeTracerProvider, BatchSpanProcessor }, traces, meters] =
    await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/sdk-trace-node"),
      tracesProtocol === "http/json" ? import("@opentelemetry/exporter-trace-otlp-http") : import("@opentelemetry/exporter-trace-otlp-proto"),
      metricsProtocol === "http/json" ? import("@opentelemetry/exporter-metrics-otlp-http") : import("@opentelemetry/exporter-metrics-otlp-proto"),
    ]);
  // The generated defaults first; OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (the env detector) override them.
  const replica = value(env, "CONTAINER_APP_REPLICA_NAME") ?? randomUUID();
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": defaultServiceName, "service.instance.id": replica }))
    .merge(detectResources({ detectors: [envDetector] }));

  // No sampler given: the SDK takes OTEL_TRACES_SAMPLER (default: every trace, parent-based).
  const tracing = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new traces.OTLPTraceExporter())] });
  tracing.register();
  const interval = Number(value(env, "OTEL_METRIC_EXPORT_INTERVAL") ?? DEFAULT_METRIC_INTERVAL_MS);
  const meterProvider = new sdkMetrics.MeterProvider({
    resource,
    readers: [
      new sdkMetrics.PeriodicExportingMetricReader({
        exporter: new meters.OTLPMetricExporter(),
        exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : DEFAULT_METRIC_INTERVAL_MS,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    kind: "otlp",
    destination: `OTLP (${tracesProtocol === metricsProtocol ? tracesProtocol : `traces ${tracesProtocol}, metrics ${metricsProtocol}`})`,
    shutdown: async () => {
      const results = await Promise.allSettled([tracing.shutdown(), meterProvider.shutdown()]);
      return results.flatMap((result) => (result.status === "rejected" ? [result.reason instanceof Error ? result.reason.message : String(result.reason)] : []));
    },
  };
}

/** The signal's protocol (its own variable, else the general one, else http/protobuf); grpc is refused by name. */
function protocol(env: Env, signal: "TRACES" | "METRICS"): Protocol {
  const name = value(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) === undefined ? "OTEL_EXPORTER_OTLP_PROTOCOL" : `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const chosen = value(env, name) ?? "http/protobuf";
  if (chosen === "http/protobuf" || chosen === "http/json") return chosen;
  throw new ConfigurationError(`${name} must be http/protobuf or http/json (this project installs the OTLP/HTTP exporters only), got "${chosen}"`);
}

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}
