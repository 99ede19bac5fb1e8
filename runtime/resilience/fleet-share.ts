// The contract between a replica's rate governor (rate-governor.ts) and whatever shares the Stripe budget with the
// fleet (fleet-budget.ts in PostgreSQL, memory-fleet-share.ts in one process): the limiters' names, what a replica
// reports each period, and what the fleet answers.

/** The account's limiter; endpoint limiters are `endpoint:<operation>`. */
export const accountLimiter = "account";
/**
 * What a 429 names when it is about one object, not a budget (`lock_timeout`: another request holds the object):
 * no limiter's rate is cut, the call is retried after a short wait (governed-stripe-call.ts).
 */
export const objectLimiter = "object";

export interface LimiterReport {
  limiter: string;
  /** Requests that got an answer other than 429 since the last report. */
  admitted: number;
  /** Fresh 429s since the last report (answers to requests sent after the last cut). */
  throttled: number;
  /** A caller had to wait for its turn since the last report: the rate, not the demand, is the bound. */
  saturated: boolean;
  /** Slow start's bounds of this replica's share (slow-start.ts), while nothing is learned. */
  slowStart?: { estimate: number } | undefined;
}

/** What a fleet share answers: each limiter's fleet rate (undefined: nothing learned yet) and the replicas sharing it. */
export interface FleetRates {
  rates: ReadonlyMap<string, number | undefined>;
  /** The live replicas: the rate is divided among them. */
  members: number;
}

/** What a replica in slow start listens for. */
export interface FleetNews {
  /** The limiters on which the fleet met a 429, each with the fleet's rate (undefined until learned, a period later). */
  throttled: ReadonlyMap<string, number | undefined>;
  /** The live replicas. */
  members: number;
}

export interface FleetShare {
  sync(reports: readonly LimiterReport[], periodMs: number): Promise<FleetRates>;
  /** Read only and cheap, for a replica in slow start whose callers wait: polled each twentieth of a period. */
  peek(periodMs: number): Promise<FleetNews>;
  /** A replica in slow start met a 429: the fleet's first on this limiter unless it knew one (fleet-step.ts, firstThrottled). */
  firstThrottled(limiter: string): Promise<void>;
  close(): Promise<void>;
}
