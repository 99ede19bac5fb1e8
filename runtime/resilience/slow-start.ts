// How a limiter finds the budget when nobody told it and the fleet has not learned it yet (README, "One Stripe
// budget for the fleet"). Like TCP's slow start: the account's limiter starts at a modest rate and doubles each
// quarter period while callers wait for it and no 429 came, so an idle-to-busy start costs a second, not the budget.
//
// Stripe's limiter is a token bucket: a full bucket lets a burst through above the budget, so the first 429 comes
// late, when the rate may already be far past the budget (doubling each quarter period, several times past it), and
// what got through before it counts the burst. So the first cut does not trust the rate: it takes what got through in
// the last second (at most, since the start) and divides by that time plus one second, as if the bucket held about a
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
/** The bucket assumed, in seconds of budget. */
const bucketSeconds = 1;

export class SlowStart {
  /** When the first request went (ms, the governor's clock); undefined: none yet. */
  #firstAt: number | undefined;
  /** When each request admitted within the last second went. */
  #admitted: number[] = [];

  admitted(sentAt: number): void {
    this.#firstAt ??= sentAt;
    this.#admitted.push(sentAt);
    if (this.#admitted.length > 64 && (this.#admitted[0] as number) < sentAt - windowMs) this.#admitted = this.#admitted.filter((at) => at >= sentAt - windowMs);
  }

  sent(sentAt: number): void {
    this.#firstAt ??= sentAt;
  }

  /** The budget's estimate from what got through in the last second (requests per second); none before any. */
  bounds(now: number): { estimate: number } | undefined {
    if (this.#firstAt === undefined) return undefined;
    const seconds = Math.max(0.05, Math.min(windowMs, now - this.#firstAt) / 1000);
    const admitted = this.#admitted.filter((at) => at >= now - seconds * 1000).length;
    if (admitted === 0) return undefined;
    return { estimate: admitted / (seconds + bucketSeconds) };
  }
}
