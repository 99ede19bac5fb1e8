// What a contender's replicas get on top of the harness's context in a degraded scenario: their own durations that
// race against the window, scaled to virtual time like the window itself (scenarios.ts says what is and is not).
import type { ContenderKind } from "../run/run-types.js";
import { virtualTimeFactor } from "./scenarios.js";

/** A production duration run in virtual time: 1/24 of it, at least `floorMs`. */
export function scaled(productionMs: number, floorMs = 1): number {
  return Math.max(floorMs, Math.round(productionMs / virtualTimeFactor));
}

/**
 * The generated consumer: its waits (1 s doubling to 10 s, the runtime's settlement policy takes them from the retry
 * policy's base and ceiling) and its breakers' probes (1 s doubling to 30 s) scaled. Its `pg` timeouts are not: they
 * also bound its start-up statements (migrations, four replicas waiting on each other), and scaled to 1-4 s on the
 * loaded machine they failed replicas' starts ("Query read timeout"). Its attempt backoff shares the retry policy's numbers, so it is scaled from 5 s to the waits' 42 ms: no
 * scenario produces an unknown outcome that is not a wait, so that backoff is not what is measured.
 */
export function generatedScenarioContext(): Record<string, unknown> {
  return {
    retryPolicy: { baseDelayMs: scaled(1_000), maxDelayMs: scaled(10_000) },
    breakers: { firstProbeDelayMs: scaled(1_000), maxProbeDelayMs: scaled(30_000) },
  };
}

/** The naive contender: the seeds' schedule (8 attempts, 5 s doubling to 15 min) scaled; nothing else to scale. */
export function naiveScenarioContext(): Record<string, unknown> {
  return { retryPolicy: { maxAttempts: 8, baseDelayMs: scaled(5_000), maxDelayMs: scaled(15 * 60_000) } };
}

export function scenarioContextFor(kind: ContenderKind): Record<string, unknown> {
  return kind === "generated" ? generatedScenarioContext() : naiveScenarioContext();
}
