// The contender's telemetry reader: replicas sharing one meter provider, each with its own breakers, read back as the
// sum of their paused seconds and open breakers (the SDK alone keeps one observation per attribute set), with no
// attribute of the harness's own left on the points.
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { ContenderTelemetry } from "../../prove/measure/telemetry-reader.js";
import { CircuitBreaker } from "../../runtime/resilience/circuit-breaker.js";
import { resilienceTelemetry } from "../../runtime/telemetry/resilience-telemetry.js";

it("sums the replicas' paused seconds and open breakers per dependency", async () => {
  const reader = new ContenderTelemetry();
  const replicas = [0, 1, 2].map(() => new CircuitBreaker({ dependency: "stripe", probe: () => Promise.reject(new Error("down")), failureThreshold: 1, firstProbeDelayMs: 60_000 }));
  try {
    for (const breaker of replicas) resilienceTelemetry([breaker], reader.meterProvider);
    replicas[0]!.failed("503");
    replicas[1]!.failed("503");
    await sleep(100);
    const points = await reader.points();
    const state = points.filter((p) => p.name === "chargeguard.dependency.breaker.state");
    expect(state).toEqual([{ name: "chargeguard.dependency.breaker.state", attributes: { "chargeguard.dependency": "stripe" }, value: 2 }]);
    const paused = (await reader.summary()).pausedSeconds?.stripe ?? 0;
    // Two replicas paused about 0.1 s each: more than one replica's share.
    expect(paused).toBeGreaterThan(0.15);
    expect(points.every((p) => !("prove.registration" in p.attributes))).toBe(true);
  } finally {
    for (const breaker of replicas) breaker.close();
    await reader.shutdown();
  }
});
