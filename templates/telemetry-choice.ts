// Where the generated consumer exports the runtime's telemetry, chosen at generation (`--telemetry`): Azure Monitor
// (the template's own src/telemetry.ts and packages), OTLP (files/telemetry/otlp and OpenTelemetry's OTLP/HTTP
// exporters) or none (files/telemetry/none, no SDK at all). Each installs only what its src/telemetry.ts imports, so a
// consumer carries one exporter's tree (the footprint goal, scripts/footprint/install-size.mjs).
import path from "node:path";

/** The first is the default. */
export const telemetryChoices = ["azure-monitor", "otlp", "none"] as const;
export type TelemetryChoice = (typeof telemetryChoices)[number];

/** The template's package.json lists Azure Monitor's; the SDK pieces every exporting choice shares stay. */
const azureMonitorOnly = ["@azure/monitor-opentelemetry-exporter"];
const sdkPackages = ["@opentelemetry/resources", "@opentelemetry/sdk-metrics", "@opentelemetry/sdk-trace-node"];

/**
 * OpenTelemetry's OTLP exporters, exactly as the root package.json pins them (test/templates/telemetry-choice.test.ts
 * holds the two equal). 0.223.0 depends on the SDK's 2.12.0 exactly: the project pins the SDK at that version too,
 * so its tree holds one SDK, not two. http/protobuf (the specification's default) and http/json; no gRPC.
 */
export const otlpPackages: Record<string, string> = {
  "@opentelemetry/exporter-metrics-otlp-http": "0.223.0",
  "@opentelemetry/exporter-metrics-otlp-proto": "0.223.0",
  "@opentelemetry/exporter-trace-otlp-http": "0.223.0",
  "@opentelemetry/exporter-trace-otlp-proto": "0.223.0",
};
export const otlpSdkVersion = "2.12.0";

/** The layer over files/consumer that replaces src/telemetry.ts; undefined for the template's own (Azure Monitor). */
export function telemetryLayer(consumerRoot: string, telemetry: TelemetryChoice): string | undefined {
  return telemetry === "azure-monitor" ? undefined : path.join(consumerRoot, "..", "telemetry", telemetry);
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The project's package.json text with the chosen exporter's packages, and no other's. */
export function withTelemetryPackages(manifestText: string, telemetry: TelemetryChoice): string {
  if (telemetry === "azure-monitor") return manifestText;
  const manifest = JSON.parse(manifestText) as { dependencies?: Record<string, string> };
  const dependencies = { ...manifest.dependencies };
  for (const name of [...azureMonitorOnly, ...sdkPackages]) delete dependencies[name];
  if (telemetry === "otlp") {
    Object.assign(dependencies, otlpPackages, Object.fromEntries(sdkPackages.map((name) => [name, otlpSdkVersion])));
  }
  manifest.dependencies = sorted(dependencies);
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The generated README's row for the telemetry variables (its `__TELEMETRY_ROW__`). */
export function telemetryReadmeRow(telemetry: TelemetryChoice, serviceName: string): string {
  if (telemetry === "azure-monitor") {
    return `| \`APPLICATIONINSIGHTS_CONNECTION_STRING\` | export the runtime's metrics and traces to Azure Monitor (\`@azure/monitor-opentelemetry-exporter\`), honouring \`OTEL_METRIC_EXPORT_INTERVAL\` (ms, default 60000), \`OTEL_SERVICE_NAME\` (default \`${serviceName}\`), \`OTEL_RESOURCE_ATTRIBUTES\`; with \`AZURE_CLIENT_ID\` the exporter signs in with Entra ID as that identity (it needs *Monitoring Metrics Publisher* on the Application Insights resource; the deployment grants it); not set (or \`OTEL_SDK_DISABLED=true\`): no export and no Entra call |`;
  }
  if (telemetry === "none") {
    return "| (telemetry) | none: generated with `--telemetry none`, the project installs no OpenTelemetry SDK and exports nothing (`chargeguard new consumer --telemetry azure-monitor\\|otlp` writes a src/telemetry.ts that does) |";
  }
  return `| \`OTEL_EXPORTER_OTLP_ENDPOINT\` | export the runtime's metrics and traces over OTLP/HTTP (OpenTelemetry's own exporters) to a Collector, Grafana Alloy, the Datadog Agent or any OTLP endpoint (\`/v1/traces\`, \`/v1/metrics\` are appended; \`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT\` / \`_METRICS_ENDPOINT\` name a signal's own URL), honouring \`OTEL_EXPORTER_OTLP_PROTOCOL\` (\`http/protobuf\`, the default, or \`http/json\`; \`grpc\` is not installed: exit 2), \`OTEL_EXPORTER_OTLP_HEADERS\`, \`OTEL_TRACES_SAMPLER\`, \`OTEL_METRIC_EXPORT_INTERVAL\` (ms, default 60000), \`OTEL_SERVICE_NAME\` (default \`${serviceName}\`), \`OTEL_RESOURCE_ATTRIBUTES\`; not set (or \`OTEL_SDK_DISABLED=true\`): no export |`;
}
