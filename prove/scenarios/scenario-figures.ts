// A degraded scenario's figures for one contender: how hard it pressed the dependency while it was degraded, how long
// it stood paused (its own telemetry), how soon the backlog drained once the dependency was back, and for the rate
// limit the budget it used and the share of its requests answered 429.
import type { DegradedDependency, ScenarioName, ScenarioSpec } from "./scenarios.js";

export interface DegradationCounts {
  /** Requests (Stripe), connections (database) or key requests (vault) that met the degradation. */
  metDegradation: number;
  /** Stripe requests the rate limiter admitted. */
  admitted?: number;
  /** The database scenarios: connections the fault proxy closed at the recovery (a standby takeover), and cut for being idle. */
  connectionsCut?: number;
  idleCut?: number;
}

export interface ScenarioFigures {
  scenario: ScenarioName;
  dependency: DegradedDependency;
  /** The degradation's window in wall ms and the virtual ms it stands for (0: the whole run). */
  windowMs: number;
  windowVirtualMs: number;
  /** Requests (connections for the database, key requests for the vault) that met the degradation. */
  requestsWhileDegraded: number;
  /** The same per replica per wall second of the window (absent for the rate limit, which has no window). */
  requestsPerReplicaSecond?: number;
  /** The database scenarios, to the drain: connections closed at the recovery, and cut for being idle. */
  connectionsCut?: { atRecovery: number; idle: number };
  /** Seconds intake stood paused for the dependency, summed over the replicas (the contender's telemetry; absent without). */
  pausedSeconds?: number;
  /** Wall ms from the dependency's recovery (the rate limit: the fleet's start) to the queue drained. */
  drainAfterRecoveryMs?: number;
  /**
   * Wall ms from the recovery to the last card attempt at Stripe (whole seconds: Stripe's `created`): the backlog
   * billed. The drain can end later: a producer's duplicate that met its twin's lease waits the lease out, then
   * finds the event billed.
   */
  billedAfterRecoveryMs?: number;
  /** stripe-rate-limit only. */
  rateLimit?: {
    perSecond: number;
    admitted: number;
    throttled: number;
    /** throttled / (admitted + throttled). */
    throttledShare: number;
    /** admitted / (perSecond x seconds until the last card attempt, at least 1). */
    budgetUsed: number;
    /** The drain at exactly the budget: one request per valid event / perSecond. */
    idealDrainMs: number;
  };
}

export interface FigureInputs {
  spec: ScenarioSpec;
  counts: DegradationCounts;
  began: number;
  recoveredAt: number | undefined;
  drainedAt: number;
  windowMs: number;
  replicas: number;
  pausedSeconds: number | undefined;
  factor: number;
  /** Stripe requests the workload needs at the least: one per valid event. */
  neededRequests: number;
  /** When the last card attempt reached Stripe (ms, Stripe's `created` x 1000), if any did. */
  lastAttemptAt: number | undefined;
}

export function scenarioFigures(inputs: FigureInputs): ScenarioFigures {
  const { spec, counts, windowMs } = inputs;
  const figures: ScenarioFigures = {
    scenario: spec.name,
    dependency: spec.dependency,
    windowMs,
    windowVirtualMs: windowMs * inputs.factor,
    requestsWhileDegraded: counts.metDegradation,
  };
  if (windowMs > 0) figures.requestsPerReplicaSecond = round(counts.metDegradation / inputs.replicas / (windowMs / 1000), 2);
  if (counts.connectionsCut !== undefined || counts.idleCut !== undefined) figures.connectionsCut = { atRecovery: counts.connectionsCut ?? 0, idle: counts.idleCut ?? 0 };
  if (inputs.pausedSeconds !== undefined) figures.pausedSeconds = round(inputs.pausedSeconds, 1);
  if (inputs.recoveredAt !== undefined) {
    figures.drainAfterRecoveryMs = Math.max(0, inputs.drainedAt - inputs.recoveredAt);
    if (inputs.lastAttemptAt !== undefined) figures.billedAfterRecoveryMs = Math.max(0, inputs.lastAttemptAt - inputs.recoveredAt);
  }
  if (spec.rateLimit) {
    const admitted = counts.admitted ?? 0;
    const throttled = counts.metDegradation;
    // While the backlog was billed: to the last card attempt (the drain's tail is duplicates waiting out a lease).
    const billedAt = inputs.lastAttemptAt ?? inputs.drainedAt;
    const seconds = Math.max(1, (billedAt - inputs.began) / 1000);
    figures.rateLimit = {
      perSecond: spec.rateLimit.global.perSecond,
      admitted,
      throttled,
      throttledShare: round(throttled / Math.max(1, admitted + throttled), 3),
      budgetUsed: round(admitted / (spec.rateLimit.global.perSecond * seconds), 3),
      idealDrainMs: Math.round((inputs.neededRequests / spec.rateLimit.global.perSecond) * 1000),
    };
  }
  return figures;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** The figures in the table's words. */
export function describeScenarioFigures(figures: ScenarioFigures): [string, string][] {
  const rows: [string, string][] = [];
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  if (figures.windowMs > 0) {
    rows.push(["degraded window", `${seconds(figures.windowMs)} wall (${Math.round(figures.windowVirtualMs / 60_000)} min virtual)`]);
    const unit = { stripe: "request(s)", database: "connection(s)", vault: "key request(s)" }[figures.dependency];
    rows.push([`${figures.dependency} while degraded`, `${figures.requestsWhileDegraded.toLocaleString("en-US")} ${unit}, ${figures.requestsPerReplicaSecond ?? 0}/s per replica (wall)`]);
  }
  if (figures.rateLimit) {
    const r = figures.rateLimit;
    rows.push(["Stripe budget", `${r.perSecond}/s: ${Math.round(r.budgetUsed * 100)}% used, ${(r.throttledShare * 100).toFixed(1)}% of requests answered 429 (${r.throttled.toLocaleString("en-US")}); the ideal drain ${seconds(r.idealDrainMs)}`]);
  }
  if (figures.connectionsCut) rows.push(["connections cut", `${figures.connectionsCut.atRecovery} at the recovery, ${figures.connectionsCut.idle} for being idle`]);
  if (figures.pausedSeconds !== undefined) rows.push(["intake paused", `${figures.pausedSeconds} replica-seconds (telemetry, summed over the replicas)`]);
  const since = figures.windowMs > 0 ? "after recovery" : "after start";
  if (figures.billedAfterRecoveryMs !== undefined) rows.push([`billed ${since}`, `${seconds(figures.billedAfterRecoveryMs)} (the last card attempt at Stripe, whole seconds)`]);
  if (figures.drainAfterRecoveryMs !== undefined) rows.push([`drained ${since}`, seconds(figures.drainAfterRecoveryMs)]);
  return rows;
}
