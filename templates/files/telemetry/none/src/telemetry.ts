// No telemetry export: this project was generated with `--telemetry none`, so it installs no OpenTelemetry SDK or
// exporter. chargeguard's runtime still reports through the OpenTelemetry API, which does nothing without an SDK.
// To export later, regenerate with `--telemetry azure-monitor` or `--telemetry otlp` and take its src/telemetry.ts
// and the dependencies it imports.

export interface TelemetryExport {
  kind: "none";
  /** Where it exports, for the start-up log line. */
  destination: string;
  shutdown(): Promise<string[]>;
}

type Start = (env: Record<string, string | undefined>, defaultServiceName?: string) => Promise<TelemetryExport | undefined>;

/** Never starts anything: there is no SDK in this project to start. */
export const startTelemetry: Start = () => Promise.resolve(undefined);
