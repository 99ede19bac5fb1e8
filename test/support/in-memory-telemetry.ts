// The real OpenTelemetry SDK with in-memory readers: what a test reads back from a BillingTelemetry. Counters summed
// by name and attributes (the proving ground's pull reader); spans as the SDK finished them.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { ContenderTelemetry, type DataPoint } from "../../prove/measure/telemetry-reader.js";
import { createBillingTelemetry, type BillingTelemetry } from "../../runtime/telemetry/billing-telemetry.js";

export interface InMemoryTelemetry {
  telemetry: BillingTelemetry;
  points(): Promise<DataPoint[]>;
  /** Sum of a metric's points whose attributes include `match`. */
  sum(name: string, match?: Record<string, unknown>): Promise<number>;
  spans(): ReadableSpan[];
  shutdown(): Promise<void>;
}

export function inMemoryTelemetry(): InMemoryTelemetry {
  const metrics = new ContenderTelemetry();
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  return {
    telemetry: createBillingTelemetry({ meterProvider: metrics.meterProvider, tracerProvider }),
    points: () => metrics.points(),
    async sum(name, match = {}) {
      return (await metrics.points())
        .filter((point) => point.name === name && Object.entries(match).every(([key, value]) => point.attributes[key] === value))
        .reduce((total, point) => total + point.value, 0);
    },
    spans: () => spans.getFinishedSpans(),
    async shutdown() {
      await Promise.all([metrics.shutdown(), tracerProvider.shutdown()]);
    },
  };
}
