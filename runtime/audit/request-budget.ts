// How many Stripe requests per second the audit may spend. Behind a small interface so a fleet-wide governor can
// replace the local token bucket: the audit only ever asks "may I send one more request now?".
import { setTimeout as sleep } from "node:timers/promises";

export interface RequestBudget {
  /** Resolves when one request may be sent. */
  take(): Promise<void>;
}

/**
 * A token bucket: `ratePerSecond` tokens a second, at most `burst` saved up (default 1: requests evenly spaced, so
 * no one-second window ever sees more than the rate, as Stripe's limiter counts). Waiters are served in order, so a
 * burst of callers is spread evenly instead of stampeding when the bucket refills.
 */
export class TokenBucket implements RequestBudget {
  #tokens: number;
  #last: number;
  #queue: Promise<void> = Promise.resolve();

  constructor(
    readonly ratePerSecond: number,
    readonly burst = 1,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) throw new RangeError(`rate must be a positive number of requests per second, got ${ratePerSecond}`);
    this.#tokens = this.burst;
    this.#last = now();
  }

  take(): Promise<void> {
    const turn = this.#queue.then(() => this.#takeOne());
    this.#queue = turn;
    return turn;
  }

  async #takeOne(): Promise<void> {
    for (;;) {
      const now = this.now();
      this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.ratePerSecond);
      this.#last = now;
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return;
      }
      await sleep(Math.ceil(((1 - this.#tokens) / this.ratePerSecond) * 1000));
    }
  }
}
