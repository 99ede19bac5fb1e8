// The Stripe budget's rule, one step per period, the same for a lone replica and for the fleet (fleet-budget.ts):
// additive increase, multiplicative decrease, with two refinements that the fleet bench asked for
// (BENCHMARKS.md, "Fleet"):
// - a cut after a period heavy with 429s (over 10% of answers) goes straight to 95% of what Stripe let through in it
//   (the budget itself, measured), not 90% of a rate that may be twice too high (the first burst after a start);
// - after a cut the rate climbs back halfway to the knee (the rate that met the 429s) per period, then probes past it
//   by 2% a period, faster the longer no 429 came (probeStep), so it spends its time near the budget, not below it.
// One cut per episode: 429s within two periods of a cut answer requests sent before it and change nothing.

export interface RateState {
  /** Requests per second; undefined: unbounded (no ceiling, no 429 yet). */
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
  throttledPerSecond: number;
  /** A caller waited for a token: the rate, not the demand, was the bound. */
  saturated: boolean;
}

export const initialRateState: RateState = { rate: undefined, knee: undefined, cutAt: -Infinity, changedAt: -Infinity };

const minRate = 0.2;
const cutFactor = 0.9;
/** A period whose answers were more than this share 429s: cut to what got through, not by a factor. */
const heavyShare = 0.1;

/**
 * How fast to probe past the knee, by the time since the last cut: 2% a period at first (the budget is probably
 * near), 5% after 5 quiet periods, 10% after 10 (the knee was underestimated, or the budget grew). Gentle on purpose:
 * Stripe's bucket lets a burst through, so 429s show an overshoot late, and a fast probe overshoots far.
 */
function probeStep(quietMs: number, periodMs: number): number {
  if (quietMs >= 10 * periodMs) return 0.1;
  if (quietMs >= 5 * periodMs) return 0.05;
  return 0.02;
}

export function nextRate(state: RateState, news: PeriodNews, at: { now: number; periodMs: number; ceiling: number | undefined }): RateState {
  const capped = (value: number) => Math.min(at.ceiling ?? Infinity, value);
  if (news.throttledPerSecond > 0) {
    if (at.now - state.cutAt < 2 * at.periodMs) return state;
    const base = state.rate ?? Math.max(minRate, news.admittedPerSecond);
    const answered = news.admittedPerSecond + news.throttledPerSecond;
    const heavy = news.throttledPerSecond / answered > heavyShare && news.admittedPerSecond > 0;
    const rate = Math.max(minRate, heavy ? Math.min((state.rate ?? Infinity) * cutFactor, news.admittedPerSecond * 0.95) : base * cutFactor);
    return { rate, knee: heavy ? Math.min(base, news.admittedPerSecond) : base, cutAt: at.now, changedAt: at.now };
  }
  if (state.rate === undefined) return at.ceiling === undefined ? state : { ...state, rate: at.ceiling, changedAt: at.now };
  if (!news.saturated || at.now - state.changedAt < at.periodMs) {
    const rate = capped(state.rate);
    return rate === state.rate ? state : { ...state, rate, changedAt: at.now };
  }
  const towardKnee = state.knee !== undefined && state.rate < state.knee ? (state.knee - state.rate) / 2 : 0;
  const rate = capped(state.rate + Math.max(minRate, state.rate * probeStep(at.now - state.cutAt, at.periodMs), towardKnee));
  return rate === state.rate ? state : { ...state, rate, changedAt: at.now };
}
