// Telemetry export to Azure Monitor (Application Insights), off without APPLICATIONINSIGHTS_CONNECTION_STRING.
// chargeguard's runtime reports through the OpenTelemetry API only (its own spans and metrics); this registers the
// two SDK pieces those need, a tracer provider and a meter provider, each with Azure Monitor's exporter, before the
// consumer starts (so the runtime's instruments land in them). No distro: no auto-instrumentation of http, pg or
// the Azure SDKs, no live metrics or performance counters, so the production install stays small.
//   APPLICATIONINSIGHTS_CONNECTION_STRING  where to send; absent (or OTEL_SDK_DISABLED=true): no SDK, no export
//   AZURE_CLIENT_ID                        the app's user-assigned identity: the exporter signs in with Entra ID as
//                                          it (role Monitoring Metrics Publisher), as a component with local auth
//                                          disabled requires; absent: the connection string alone (local auth)
//   OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_METRIC_EXPORT_INTERVAL (ms, default 60000), as the
//   specification says. Each replica reports its own service.instance.id.
import { randomUUID } from "node:crypto";

export interface TelemetryExport {
  kind: "azure-monitor";
  /** Where it exports, for the start-up log line. */
  destination: string;
  /** True when the exporter signs in with Entra ID (AZURE_CLIENT_ID), false when it sends the connection string alone. */
  entra: boolean;
  /**
   * Flushes what is buffered (the last metrics and spans), then stops the SDK. Resolves with what could not be sent
   * (an unreachable or refusing ingestion endpoint): losing telemetry never fails the consumer's exit.
   */
  shutdown(): Promise<string[]>;
}

type Env = Record<string, string | undefined>;

/** Azure Monitor's default for the distro this replaces: at most five sampled traces a second per replica. */
const TRACES_PER_SECOND = 5;
const DEFAULT_METRIC_INTERVAL_MS = 60_000;

/**
 * Starts the SDK when the environment asks for export; undefined when it does not (then nothing is imported). `env`:
 * the process's environment as chargeguard's one reader hands it (main.ts), or a test's own.
 */
export async function startTelemetry(env: Env, defaultServiceName = "billing-consumer"): Promise<TelemetryExport | undefined> {
  const connectionString = value(env, "APPLICATIONINSIGHTS_CONNECTION_STRING");
  if (connectionString === undefined || value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;

  const [{ metrics }, exporter, { defaultResource, resourceFromAttributes }, sdkMetrics, { NodeTracerProvider, BatchSpanProcessor }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@azure/monitor-opentelemetry-exporter"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-metrics"),
    import("@opentelemetry/sdk-trace-node"),
  ]);
  const clientId = value(env, "AZURE_CLIENT_ID");
  const options = { connectionString, ...(clientId === undefined ? {} : { credential: await managedIdentity(clientId) }) };
  const resource = defaultResource().merge(resourceFromAttributes(resourceAttributes(env, defaultServiceName)));

  const tracing = new NodeTracerProvider({
    resource,
    sampler: new exporter.RateLimitedSampler(TRACES_PER_SECOND),
    spanProcessors: [new BatchSpanProcessor(new exporter.AzureMonitorTraceExporter(options))],
  });
  tracing.register();
  const interval = Number(value(env, "OTEL_METRIC_EXPORT_INTERVAL") ?? DEFAULT_METRIC_INTERVAL_MS);
  const meters = new sdkMetrics.MeterProvider({
    resource,
    readers: [
      new sdkMetrics.PeriodicExportingMetricReader({
        exporter: new exporter.AzureMonitorMetricExporter(options),
        exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : DEFAULT_METRIC_INTERVAL_MS,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meters);
  return {
    kind: "azure-monitor",
    destination: `Azure Monitor (${clientId === undefined ? "connection string only" : "Entra ID: AZURE_CLIENT_ID"})`,
    entra: clientId !== undefined,
    shutdown: async () => {
      const results = await Promise.allSettled([tracing.shutdown(), meters.shutdown()]);
      return results.flatMap((result) => (result.status === "rejected" ? [result.reason instanceof Error ? result.reason.message : String(result.reason)] : []));
    },
  };
}

/** The app's user-assigned identity; imported only here, so a consumer without export loads no identity code. */
async function managedIdentity(clientId: string) {
  const { ManagedIdentityCredential } = await import("@azure/identity");
  return new ManagedIdentityCredential({ clientId });
}

/**
 * The resource the specification's variables describe: OTEL_RESOURCE_ATTRIBUTES (key=value pairs, comma-separated,
 * percent-encoded), OTEL_SERVICE_NAME over its service.name (default: the generated consumer's name), and a
 * service.instance.id per replica (CONTAINER_APP_REPLICA_NAME, else a UUID) unless one is named.
 */
export function resourceAttributes(env: Env, defaultServiceName: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const entry of (env.OTEL_RESOURCE_ATTRIBUTES ?? "").split(",")) {
    const at = entry.indexOf("=");
    const key = entry.slice(0, at).trim();
    if (at > 0 && key !== "") attributes[key] = decodeURIComponent(entry.slice(at + 1).trim());
  }
  attributes["service.name"] = value(env, "OTEL_SERVICE_NAME") ?? attributes["service.name"] ?? defaultServiceName;
  attributes["service.instance.id"] ??= value(env, "CONTAINER_APP_REPLICA_NAME") ?? randomUUID();
  return attributes;
}

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}
