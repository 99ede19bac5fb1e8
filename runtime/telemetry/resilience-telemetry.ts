// What the operator sees of degraded dependencies (README, "Degraded dependencies"): 429s by dependency and limiter,
// each breaker's state, and the seconds intake stood paused per dependency. Through @opentelemetry/api only, as the
// rest of the consumer's telemetry: a no-op until the application registers an SDK. Attributes are bounded.
import { metrics, type MeterProvider } from "@opentelemetry/api";
import type { CircuitBreaker } from "../resilience/circuit-breaker.js";
import type { Dependency } from "../guard/dependency-fault.js";
import { attributeNames, metricNames } from "./metric-names.js";

export interface ResilienceTelemetry {
  /** A request answered 429 (throttled), by dependency and the limiter that said so. */
  throttled(dependency: Dependency, limiter: string): void;
}

/** Limiter names Stripe documents, and ours; anything else is `other` (attributes stay bounded). */
const knownLimiters = new Set(["global-rate", "endpoint-rate", "global-concurrency", "endpoint-concurrency", "resource-specific", "global", "client"]);

export function resilienceTelemetry(breakers: readonly CircuitBreaker[], meterProvider: MeterProvider = metrics.getMeterProvider()): ResilienceTelemetry {
  const meter = meterProvider.getMeter("chargeguard.resilience");
  const throttled = meter.createCounter(metricNames.dependencyThrottled, { unit: "{request}", description: "Requests a dependency answered 429 (throttled)" });
  meter
    .createObservableGauge(metricNames.breakerState, { unit: "1", description: "1 while the dependency's breaker is open (intake paused), 0 closed" })
    .addCallback((result) => {
      for (const breaker of breakers) result.observe(breaker.state === "open" ? 1 : 0, { [attributeNames.dependency]: breaker.dependency });
    });
  meter
    .createObservableCounter(metricNames.dependencyPaused, { unit: "s", description: "Seconds intake stood paused because the dependency was down" })
    .addCallback((result) => {
      for (const breaker of breakers) result.observe(breaker.pausedSeconds(), { [attributeNames.dependency]: breaker.dependency });
    });
  return {
    throttled: (dependency, limiter) =>
      throttled.add(1, { [attributeNames.dependency]: dependency, [attributeNames.limiter]: knownLimiters.has(limiter) ? limiter : "other" }),
  };
}
