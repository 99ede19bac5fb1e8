// The degraded dependencies' telemetry through the real OpenTelemetry SDK: 429s by dependency and limiter (bounded),
// each breaker's state, and seconds paused.
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { ContenderTelemetry } from "../../../prove/measure/telemetry-reader.js";
import { CircuitBreaker } from "../../../runtime/resilience/circuit-breaker.js";
import { resilienceTelemetry } from "../../../runtime/telemetry/resilience-telemetry.js";

it("counts 429s, shows the open breaker and its paused seconds", async () => {
  const reader = new ContenderTelemetry();
  const stripe = new CircuitBreaker({ dependency: "stripe", probe: () => Promise.reject(new Error("down")), failureThreshold: 1, firstProbeDelayMs: 60_000 });
  const database = new CircuitBreaker({ dependency: "database", probe: async () => {} });
  try {
    const telemetry = resilienceTelemetry([stripe, database], reader.meterProvider);
    telemetry.throttled("stripe", "global-rate");
    telemetry.throttled("stripe", "global-rate");
    telemetry.throttled("stripe", "some-new-limiter");
    stripe.failed("503");
    await sleep(50);
    const points = await reader.points();
    const value = (name: string, attributes: Record<string, string>) =>
      points.filter((p) => p.name === name && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v)).reduce((sum, p) => sum + p.value, 0);
    expect(value("chargeguard.dependency.throttled", { "chargeguard.dependency": "stripe", "chargeguard.limiter": "global-rate" })).toBe(2);
    expect(value("chargeguard.dependency.throttled", { "chargeguard.limiter": "other" })).toBe(1);
    expect(value("chargeguard.dependency.breaker.state", { "chargeguard.dependency": "stripe" })).toBe(1);
    expect(value("chargeguard.dependency.breaker.state", { "chargeguard.dependency": "database" })).toBe(0);
    expect(value("chargeguard.dependency.paused", { "chargeguard.dependency": "stripe" })).toBeGreaterThan(0.03);
  } finally {
    stripe.close();
    database.close();
    await reader.shutdown();
  }
});
