// What a contender's replicas get on top of the harness's context in a degraded scenario: their own durations that
// race against the window, scaled to virtual time like the window itself (scenarios.ts says what is and is not).
import { pgTimeouts, type PgTimeouts } from "../runtime/guard/index.js";
import type { ContenderKind } from "./results.js";
import { virtualTimeFactor } from "./scenarios.js";

/** A production duration run in virtual time: 1/24 of it, at least `floorMs`. */
export function scaled(productionMs: number, floorMs = 1): number {
  return Math.max(floorMs, Math.round(productionMs / virtualTimeFactor));
}

/**
 * The generated consumer: its waits (1 s doubling to 10 s, the runtime's settlement policy takes them from the retry
 * policy's base and ceiling) and its breakers' probes (1 s doubling to 30 s) scaled; its `pg` timeouts scaled with a
 * 1 s floor. Its attempt backoff shares the retry policy's numbers, so it is scaled from 5 s to the waits' 42 ms: no
 * scenario produces an unknown outcome that is not a wait, so that backoff is not what is measured.
 */
export function generatedScenarioContext(): Record<string, unknown> {
  const databaseTimeouts: PgTimeouts = {
    ...pgTimeouts,
    connectionTimeoutMillis: scaled(pgTimeouts.connectionTimeoutMillis ?? 5_000, 1_000),
    statement_timeout: scaled(Number(pgTimeouts.statement_timeout ?? 15_000), 1_000),
    query_timeout: scaled(pgTimeouts.query_timeout ?? 20_000, 1_000),
    idle_in_transaction_session_timeout: scaled(Number(pgTimeouts.idle_in_transaction_session_timeout ?? 10_000), 1_000),
    keepAliveInitialDelayMillis: scaled(pgTimeouts.keepAliveInitialDelayMillis ?? 10_000, 1_000),
  };
  return {
    retryPolicy: { baseDelayMs: scaled(1_000), maxDelayMs: scaled(10_000) },
    breakers: { firstProbeDelayMs: scaled(1_000), maxProbeDelayMs: scaled(30_000) },
    databaseTimeouts,
  };
}

/** The naive contender: the seeds' schedule (8 attempts, 5 s doubling to 15 min) scaled; nothing else to scale. */
export function naiveScenarioContext(): Record<string, unknown> {
  return { retryPolicy: { maxAttempts: 8, baseDelayMs: scaled(5_000), maxDelayMs: scaled(15 * 60_000) } };
}

export function scenarioContextFor(kind: ContenderKind): Record<string, unknown> {
  return kind === "generated" ? generatedScenarioContext() : naiveScenarioContext();
}
