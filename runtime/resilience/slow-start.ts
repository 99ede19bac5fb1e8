// How a limiter finds the budget when nobody told it and the fleet has not learned it yet (README, "One Stripe
// budget for the fleet"). Like TCP's slow start: the account's limiter starts at a modest rate and doubles each
// quarter period while callers wait for it and no 429 came, so an idle-to-busy start costs a second, not the budget.
//
// Stripe's limiter is a token bucket: a full bucket lets a burst through above the budget, so the first 429 comes
// late, when the rate may already be far past the budget (doubling each quarter period, several times past it), and
// what got through before it counts the burst. So the first cut does not trust the rate: it takes what got through in
// the last second (at most: since the busy spell began) and divides by that time plus one second, as if the bucket held about a
// second's worth, as Stripe's and the sandbox's do: admitted = bucket + budget x time. A bigger bucket makes the first
// estimate high, and the 429s that follow cut it; a smaller one makes it low, and the rate climbs back.

/**
 * The fleet's first rate with nothing learned (each replica its share), doubled each quarter period: Stripe's lowest
 * budget (a sandbox account's, and each endpoint's default), so a fleet never opens with a burst of every replica's
 * calls, and one that needs less never waits.
 */
export const slowStartPerSecond = 25;
/** Past this a replica in slow start stops pacing (no 429 came, so the budget is far above): nothing waits. */
export const slowStartUnboundedPerSecond = 1_000;

const windowMs = 1_000;
const quietMs = 250;
/** The bucket assumed, in seconds of budget. */
const bucketSeconds = 1;

export class SlowStart {
  /** When the current busy spell began: the first request after a quiet quarter second (ms, the governor's clock). */
  #busySince: number | undefined;
  #lastSentAt = -Infinity;
  /** When each request of the last second went, and when those answered 429 went. */
  #went: number[] = [];
  #throttled: number[] = [];

  /**
   * A request went. Counted as got through unless its 429 comes: at the first 429 the requests that took the bucket's
   * last tokens are often still in flight, and the estimate must count them.
   */
  went(sentAt: number): void {
    // Stripe's bucket refilled while nothing went: count from the spell's start, not from a second ago.
    if (sentAt - this.#lastSentAt > quietMs) this.#busySince = sentAt;
    this.#lastSentAt = Math.max(this.#lastSentAt, sentAt);
    this.#went = trimmed(this.#went, sentAt);
    this.#went.push(sentAt);
  }

  throttled(sentAt: number): void {
    this.#throttled = trimmed(this.#throttled, sentAt);
    this.#throttled.push(sentAt);
  }

  /** The budget's estimate from what got through in the busy spell's last second (requests per second); none before any. */
  bounds(now: number): { estimate: number } | undefined {
    if (this.#busySince === undefined) return undefined;
    const from = now - Math.min(windowMs, now - this.#busySince);
    const seconds = Math.max(0.05, (now - from) / 1000);
    const gotThrough = count(this.#went, from) - count(this.#throttled, from);
    if (gotThrough <= 0) return undefined;
    return { estimate: gotThrough / (seconds + bucketSeconds) };
  }
}

function count(times: readonly number[], from: number): number {
  let n = 0;
  for (const at of times) if (at >= from) n += 1;
  return n;
}

/** Times within the last second, dropped in bulk so a busy limiter does not filter on every request. */
function trimmed(times: number[], now: number): number[] {
  return times.length > 256 && (times[0] as number) < now - windowMs ? times.filter((at) => at >= now - windowMs) : times;
}
