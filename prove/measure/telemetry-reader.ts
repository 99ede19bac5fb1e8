// What a contender's own telemetry said, read through the real OpenTelemetry SDK with an in-memory (pull) reader, to
// print beside what the harness counted at Stripe. Only consumers built on chargeguard's runtime report anything.
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import type { MeterProvider as ApiMeterProvider } from "@opentelemetry/api";
import { attributeNames, metricNames } from "../../runtime/telemetry/index.js";
import { distinctObservations, registrationAttribute } from "./observable-instruments.js";

/** Collects on demand; nothing is exported in the background. */
export class PullMetricReader extends MetricReader {
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

export interface TelemetrySummary {
  /** `chargeguard.billing.outcomes` by outcome. */
  outcomes: Record<string, number>;
  /** `chargeguard.duplicates_prevented` by source (redelivery, retry, resubmission, other). */
  duplicatesPrevented: Record<string, number>;
  /** The same, by who stopped the duplicate (guard_billed, guard_declined, guard_busy, stripe_replayed). */
  duplicatesPreventedBy: Record<string, number>;
  /** `chargeguard.dependency.paused`: seconds intake stood paused, by dependency, summed over the replicas. */
  pausedSeconds?: Record<string, number>;
  /** `chargeguard.dependency.throttled`: requests answered 429, by dependency. */
  throttled?: Record<string, number>;
}

export class ContenderTelemetry {
  readonly #reader = new PullMetricReader();
  readonly #provider = new MeterProvider({ readers: [this.#reader] });
  /** What the replicas get: their observations kept apart, so a sum over them is a sum (observable-instruments.ts). */
  readonly meterProvider: ApiMeterProvider = distinctObservations(this.#provider, new Set([metricNames.dependencyPaused, metricNames.breakerState]));

  async points(): Promise<DataPoint[]> {
    const { resourceMetrics, errors } = await this.#reader.collect();
    if (errors.length > 0) throw new AggregateError(errors, "metric collection failed");
    return mergeRegistrations(dataPoints(resourceMetrics));
  }

  async summary(): Promise<TelemetrySummary> {
    const points = await this.points();
    const by = (name: string, attribute: string) => {
      const totals: Record<string, number> = {};
      for (const point of points.filter((p) => p.name === name)) {
        const key = String(point.attributes[attribute]);
        totals[key] = (totals[key] ?? 0) + point.value;
      }
      return totals;
    };
    return {
      outcomes: by(metricNames.outcomes, attributeNames.outcome),
      duplicatesPrevented: by(metricNames.duplicatesPrevented, attributeNames.source),
      duplicatesPreventedBy: by(metricNames.duplicatesPrevented, attributeNames.preventedBy),
      pausedSeconds: by(metricNames.dependencyPaused, attributeNames.dependency),
      throttled: by(metricNames.dependencyThrottled, attributeNames.dependency),
    };
  }

  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}

export function dataPoints(resourceMetrics: ResourceMetrics): DataPoint[] {
  const out: DataPoint[] = [];
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      const histogram = metric.dataPointType === DataPointType.HISTOGRAM || metric.dataPointType === DataPointType.EXPONENTIAL_HISTOGRAM;
      for (const point of metric.dataPoints) {
        const value = histogram ? (point.value as { count: number }).count : (point.value as number);
        out.push({ name: metric.descriptor.name, attributes: { ...point.attributes }, value });
      }
    }
  }
  return out;
}

/** The replicas' own observations of one attribute set, summed back into one point (observable-instruments.ts). */
function mergeRegistrations(points: DataPoint[]): DataPoint[] {
  const merged = new Map<string, DataPoint>();
  const out: DataPoint[] = [];
  for (const point of points) {
    if (!(registrationAttribute in point.attributes)) {
      out.push(point);
      continue;
    }
    const { [registrationAttribute]: _registration, ...attributes } = point.attributes;
    const key = JSON.stringify([point.name, Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b))]);
    const existing = merged.get(key);
    if (existing) existing.value += point.value;
    else {
      const fresh = { name: point.name, attributes, value: point.value };
      merged.set(key, fresh);
      out.push(fresh);
    }
  }
  return out;
}
