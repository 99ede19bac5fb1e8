// The Stripe budget's rule, one step per period, the same for a lone replica and for the fleet (fleet-budget.ts):
// additive increase, multiplicative decrease, with refinements that the fleet bench asked for (BENCHMARKS.md, "Fleet"):
// - leaving slow start (slow-start.ts: no rate learned yet), the first cut goes to the estimate from what got through
//   in the last second (about the budget, whatever burst Stripe's bucket let through);
// - later, a cut goes to 95% of what Stripe let through in the period (the budget itself, measured: its bucket was
//   empty), and at least 10% off, not by a factor of a rate that may be far too high;
// - after slow start the rate climbs 10% a period until the first cut; after a cut, halfway back to just under the
//   knee (the budget measured) per period, at most 5%, and holds there; only after 10 quiet periods does it probe
//   past the knee (2%, then 10% after 20), in case the budget grew.
// Only fresh 429s count (answers to requests sent after the last cut: the replicas drop the others, rate-governor.ts),
// and at most one cut a period: the replicas' own cuts act at once, this step makes them the fleet's.

export interface RateState {
  /** Requests per second; undefined: nothing learned yet (slow start, or unbounded). */
  rate: number | undefined;
  /** The rate that last met 429s. */
  knee: number | undefined;
  /** When the rate was last cut, and last changed (ms). */
  cutAt: number;
  changedAt: number;
}

/** What one period brought (for the fleet: summed over the live replicas). */
export interface PeriodNews {
  admittedPerSecond: number;
  /** Fresh 429s: answers to requests sent after the last cut. */
  throttledPerSecond: number;
  /** A caller waited for a token: the rate, not the demand, was the bound. */
  saturated: boolean;
  /** Slow start's bounds of the budget (slow-start.ts), when nothing was learned yet. */
  slowStart?: { estimate: number } | undefined;
}

export const initialRateState: RateState = { rate: undefined, knee: undefined, cutAt: -Infinity, changedAt: -Infinity };

export const minRate = 0.2;
export const cutFactor = 0.9;
/** The first cut after slow start's climb. */
const firstCutFactor = 0.75;
/** How close under the knee the rate settles. */
const kneeMargin = 0.95;

/**
 * How fast to probe past the knee, by the time since the last cut: 2% a period at first (the budget is probably
 * near), 5% after 5 quiet periods, 10% after 10 (the knee was underestimated, or the budget grew). Gentle on purpose:
 * Stripe's bucket lets a burst through, so 429s show an overshoot late, and a fast probe overshoots far.
 */
function probeStep(quietMs: number, periodMs: number, kneeKnown: boolean): number {
  if (!kneeKnown) return 0.1;
  if (quietMs >= 20 * periodMs) return 0.1;
  if (quietMs >= 5 * periodMs) return 0.02;
  return 0;
}

/** The cut for a period with fresh 429s. */
export function cutRate(state: RateState, news: PeriodNews): { rate: number; knee: number | undefined } {
  if (state.rate === undefined) {
    // Leaving slow start (or unbounded): the estimate from the start, not the rate the bucket's burst hid.
    // The estimate itself: it already counts the bucket's burst out (slow-start.ts: what got through over the time
    // plus a second's worth of bucket), and the climb that follows finds the knee.
    const estimate = news.slowStart?.estimate ?? news.admittedPerSecond;
    return { rate: Math.max(minRate, estimate), knee: undefined };
  }
  // What Stripe let through in a period with fresh 429s is the budget (its bucket was empty), or more when the bucket
  // emptied only during the period: cut to 95% of it, and never less than 10% off. The knee: the budget measured.
  // With no knee yet the rate climbed past the budget while the bucket hid it (it refilled below the budget): cut more.
  const measured = news.admittedPerSecond > 0 ? news.admittedPerSecond : Infinity;
  const factor = state.knee === undefined ? firstCutFactor : cutFactor;
  const rate = Math.max(minRate, Math.min(state.rate * factor, measured * 0.95));
  // Just after slow start the period's count still holds the slow part: the knee is the rate that met the 429s.
  return { rate, knee: state.knee === undefined ? state.rate : Math.min(state.rate, measured) };
}

export function nextRate(state: RateState, news: PeriodNews, at: { now: number; periodMs: number; ceiling: number | undefined }): RateState {
  const capped = (value: number) => Math.min(at.ceiling ?? Infinity, value);
  if (state.rate === undefined && Number.isFinite(state.cutAt) && state.cutAt > 0) {
    // Slow start ended a period ago: every live replica has reported since, each with its own bounds (or cut).
    if (at.now - state.cutAt < at.periodMs) return state;
    const cut = cutRate(state, news);
    return { rate: capped(cut.rate), knee: cut.knee, cutAt: state.cutAt, changedAt: at.now };
  }
  if (news.throttledPerSecond > 0) {
    // The first 429 of a fleet in slow start: wait a period for every replica's bounds, each replica already cut.
    if (state.rate === undefined && at.ceiling === undefined) return { ...state, cutAt: at.now, changedAt: at.now };
    // Within two periods of a cut, 429s may answer requests sent before the replicas heard of it.
    if (at.now - state.cutAt < 2 * at.periodMs) return state;
    const cut = cutRate(state, news);
    return { rate: capped(cut.rate), knee: cut.knee, cutAt: at.now, changedAt: at.now };
  }
  if (state.rate === undefined) return at.ceiling === undefined ? state : { ...state, rate: at.ceiling, changedAt: at.now };
  // No climb within two periods of a cut: the cut's echo (429s to requests sent before it) is still arriving.
  if (!news.saturated || at.now - state.changedAt < at.periodMs || at.now - state.cutAt < 2 * at.periodMs) {
    const rate = capped(state.rate);
    return rate === state.rate ? state : { ...state, rate, changedAt: at.now };
  }
  // Back toward the knee (95% of it: the knee met 429s), halfway but at most 5% a period, then hold; probe past
  // it only after 10 quiet periods (the budget may have grown: other systems on the account went quiet).
  const target = state.knee === undefined ? 0 : state.knee * kneeMargin;
  const towardKnee = state.rate < target ? Math.max(minRate, Math.min((target - state.rate) / 2, state.rate * 0.05)) : 0;
  const probe = state.rate * probeStep(at.now - state.cutAt, at.periodMs, state.knee !== undefined);
  if (towardKnee === 0 && probe === 0) return state;
  const rate = capped(state.rate + Math.max(towardKnee, probe));
  return rate === state.rate ? state : { ...state, rate, changedAt: at.now };
}
