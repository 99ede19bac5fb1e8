// The real OpenTelemetry SDK with in-memory readers: what a test (or the proving ground's test) reads back from a
// BillingTelemetry. Sums counters by name and attributes; spans as the SDK finished them.
import { AggregationTemporality, DataPointType, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createBillingTelemetry, type BillingTelemetry } from "../../runtime/telemetry/billing-telemetry.js";

/** A pull reader: collect() on demand, nothing exported in the background. */
class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface DataPoint {
  name: string;
  attributes: Record<string, unknown>;
  /** Sum for counters, last value for gauges, count for histograms. */
  value: number;
}

export interface InMemoryTelemetry {
  telemetry: BillingTelemetry;
  points(): Promise<DataPoint[]>;
  /** Sum of a counter's points whose attributes include `match`. */
  sum(name: string, match?: Record<string, unknown>): Promise<number>;
  spans(): ReadableSpan[];
  shutdown(): Promise<void>;
}

export function inMemoryTelemetry(): InMemoryTelemetry {
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const points = async (): Promise<DataPoint[]> => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw new AggregateError(errors, "metric collection failed");
    return flatten(resourceMetrics);
  };
  return {
    telemetry: createBillingTelemetry({ meterProvider, tracerProvider }),
    points,
    async sum(name, match = {}) {
      return (await points())
        .filter((point) => point.name === name && Object.entries(match).every(([key, value]) => point.attributes[key] === value))
        .reduce((total, point) => total + point.value, 0);
    },
    spans: () => spans.getFinishedSpans(),
    async shutdown() {
      await Promise.all([meterProvider.shutdown(), tracerProvider.shutdown()]);
    },
  };
}

export function flatten(resourceMetrics: ResourceMetrics): DataPoint[] {
  const out: DataPoint[] = [];
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      for (const point of metric.dataPoints) {
        const value =
          metric.dataPointType === DataPointType.HISTOGRAM || metric.dataPointType === DataPointType.EXPONENTIAL_HISTOGRAM
            ? (point.value as { count: number }).count
            : (point.value as number);
        out.push({ name: metric.descriptor.name, attributes: { ...point.attributes }, value });
      }
    }
  }
  return out;
}
