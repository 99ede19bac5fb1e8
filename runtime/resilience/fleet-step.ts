// The fleet's step for one limiter, taken at most once a period by whichever replica syncs first (fleet-budget.ts
// keeps the state in PostgreSQL; memory-fleet-share.ts in one process): the AIMD rule (aimd.ts) on the live replicas'
// summed counts, with slow start's bounds summed too (each replica's are its share of the budget).
import { nextRate, type RateState } from "./aimd.js";
import type { LimiterReport } from "./fleet-share.js";

/** One live replica's last period for a limiter, per second. */
export interface MemberPeriod {
  admittedPerSecond: number;
  throttledPerSecond: number;
  saturated: boolean;
  estimate: number | undefined;
}

export const unlearned: RateState = { rate: undefined, knee: undefined, cutAt: 0, changedAt: 0 };

/** The fleet met a 429 on the limiter (a rate was learned, or will be once each replica reported its estimate). */
export function metThrottling(state: RateState): boolean {
  return state.rate !== undefined || state.cutAt > 0;
}

/**
 * The fleet's first 429 on a limiter with nothing learned, marked at once by the replica that met it (not at its next
 * sync): the state the period's step (aimd.ts, nextRate) sets for it, so replicas in slow start hear of it at their
 * next peek, and the step learns the rate a period later from every replica's estimate.
 */
export function firstThrottled(state: RateState, now: number): RateState {
  return metThrottling(state) ? state : { ...state, cutAt: now, changedAt: now };
}

/** A replica's report as its row: per second. */
export function memberPeriod(report: LimiterReport, periodMs: number): MemberPeriod {
  const perSecond = 1000 / periodMs;
  return {
    admittedPerSecond: report.admitted * perSecond,
    throttledPerSecond: report.throttled * perSecond,
    saturated: report.saturated,
    estimate: report.slowStart?.estimate,
  };
}

/**
 * The next fleet state from the live replicas' periods (this replica's among them). Replicas report at their own
 * phase: early in an episode the others' rows are a period old (or absent), so what got through is at least this
 * replica's own times the live replicas.
 */
export function fleetStep(
  state: RateState,
  members: readonly MemberPeriod[],
  own: MemberPeriod,
  at: { now: number; periodMs: number; ceiling: number | undefined },
): RateState {
  const replicas = Math.max(1, members.length);
  const sum = (pick: (member: MemberPeriod) => number) => members.reduce((total, member) => total + pick(member), 0);
  const bounded = members.filter((member) => member.estimate !== undefined);
  const slowStart = bounded.length === 0 ? undefined : { estimate: sum((m) => m.estimate ?? 0) };
  const news = {
    admittedPerSecond: Math.max(sum((m) => m.admittedPerSecond), own.admittedPerSecond * replicas),
    throttledPerSecond: sum((m) => m.throttledPerSecond),
    saturated: members.some((m) => m.saturated),
    slowStart,
  };
  return nextRate(state, news, at);
}
