// One limiter's state in the rate governor (rate-governor.ts): its pacer, what got through and what was throttled
// this period, and while nothing is learned, slow start's count (slow-start.ts). The governor decides; this keeps.
import { initialRateState, type RateState } from "./aimd.js";
import type { LimiterReport } from "./fleet-share.js";
import { Pacer } from "./pacer.js";
import { SlowStart, slowStartPerSecond } from "./slow-start.js";

export class Limiter {
  readonly pacer: Pacer;
  admitted = 0;
  throttled = 0;
  saturated = false;
  /** Saturated since slow start last doubled the rate. */
  waitedSinceGrowth = false;
  /** When a caller last waited its turn (the governor's clock): a request sent then met the rate with its demand. */
  saturatedAt = -Infinity;
  /** 429s this period to requests sent at low demand (not counted as the budget unless they are most of it). */
  lowDemandThrottled = 0;
  /** The last cut (this replica's or the fleet's), on the governor's clock: a 429 to a request sent before it is stale. */
  cutAt = -Infinity;
  /** While nothing is learned: what got through since the start, for the first cut (slow-start.ts). */
  slowStart: SlowStart | undefined = new SlowStart();
  /** The account's slow start rate for the whole fleet (doubling): each replica paces at its share of it. */
  fleetSlowStartRate = slowStartPerSecond;
  /** Slow start's bounds at this replica's own first cut, reported until the fleet has learned its rate. */
  firstCut: { estimate: number } | undefined;
  /** Without a fleet: this replica's own AIMD state. */
  aimd: RateState = initialRateState;
  constructor(rate: number | undefined, now: () => number) {
    this.pacer = new Pacer(rate, now);
  }
  report(name: string, now: number): LimiterReport {
    const report = { limiter: name, admitted: this.admitted, throttled: this.throttled, saturated: this.saturated, slowStart: this.slowStart?.bounds(now) ?? this.firstCut };
    this.admitted = 0;
    this.throttled = 0;
    this.saturated = false;
    this.lowDemandThrottled = 0;
    return report;
  }
}
