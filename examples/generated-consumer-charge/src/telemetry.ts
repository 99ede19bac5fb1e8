// Telemetry export, configured by the standard variables and off without them. chargeguard's runtime reports
// through the OpenTelemetry API only; this registers an SDK for it (before the consumer starts, so the runtime's
// instruments land in it):
//   APPLICATIONINSIGHTS_CONNECTION_STRING  Azure Monitor (@azure/monitor-opentelemetry)
//   OTEL_EXPORTER_OTLP_ENDPOINT            OTLP (@opentelemetry/sdk-node), which also reads OTEL_EXPORTER_OTLP_PROTOCOL
//                                          (http/protobuf default, http/json, grpc), OTEL_METRIC_EXPORT_INTERVAL,
//                                          OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, as the specification says
// OTEL_SDK_DISABLED=true turns both off. Each replica reports its own service.instance.id.
import { randomUUID } from "node:crypto";

export interface TelemetryExport {
  kind: "azure-monitor" | "otlp";
  /** Flushes what is buffered (the last metrics and spans), then stops the SDK. */
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** Starts the SDK the environment asks for; undefined when it asks for none. */
export async function startTelemetry(env: Env = process.env, defaultServiceName = "billing-consumer"): Promise<TelemetryExport | undefined> {
  const connectionString = value(env, "APPLICATIONINSIGHTS_CONNECTION_STRING");
  const otlp = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].some((name) => value(env, name));
  if ((connectionString === undefined && !otlp) || value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;

  // Both SDKs read the resource from these variables: name the service when nobody did, and tell replicas apart.
  if (value(env, "OTEL_SERVICE_NAME") === undefined && !/(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? "")) {
    env.OTEL_SERVICE_NAME = defaultServiceName;
  }
  env.OTEL_RESOURCE_ATTRIBUTES = withInstanceId(env.OTEL_RESOURCE_ATTRIBUTES, value(env, "CONTAINER_APP_REPLICA_NAME") ?? randomUUID());

  if (connectionString !== undefined) {
    const { useAzureMonitor, shutdownAzureMonitor } = await import("@azure/monitor-opentelemetry");
    useAzureMonitor({ azureMonitorExporterOptions: { connectionString } });
    return { kind: "azure-monitor", shutdown: () => shutdownAzureMonitor() };
  }
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK();
  sdk.start();
  return { kind: "otlp", shutdown: () => sdk.shutdown() };
}

/** OTEL_RESOURCE_ATTRIBUTES with service.instance.id added, unless it names one already. */
export function withInstanceId(attributes: string | undefined, instanceId: string): string {
  const current = attributes?.trim() ?? "";
  if (/(^|,)\s*service\.instance\.id=/.test(current)) return current;
  const entry = `service.instance.id=${encodeURIComponent(instanceId)}`;
  return current === "" ? entry : `${current},${entry}`;
}

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}
