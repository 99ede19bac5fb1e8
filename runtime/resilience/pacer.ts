// One limiter's pace: callers queue (first come, first served) and are released one per 1/rate seconds, with a
// burst of 10% of a second's worth (none in slow start). The rate can change at any time and the queue follows at once: a reservation
// made at a low rate is not kept after the rate rose (the fleet bench showed replicas idling on such reservations).
// Unbounded (rate undefined): nobody waits.
import { DependencyUnavailableError } from "../guard/dependency-fault.js";

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
  deadline: number;
}

export class Pacer {
  #rate: number | undefined;
  readonly #queue: Waiter[] = [];
  /** The earliest instant the next caller may go (before the burst allowance). */
  #nextAt = 0;
  /** When the last caller went. */
  #lastAt = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  readonly #now: () => number;
  /** Let a tenth of a second's worth go at once; off in slow start, where the rate is a guess that may be far too high. */
  burst = true;

  constructor(rate: number | undefined, now: () => number) {
    this.#rate = rate;
    this.#now = now;
  }

  get rate(): number | undefined {
    return this.#rate;
  }

  set rate(rate: number | undefined) {
    const lower = rate !== undefined && (this.#rate === undefined || rate < this.#rate);
    this.#rate = rate;
    // Re-pace what is queued: a higher rate releases sooner; a lower one (a cut: Stripe's bucket is empty) later,
    // one spacing of the new rate after the last release, not on the old rate's schedule.
    if (rate !== undefined) this.#nextAt = lower ? Math.max(this.#nextAt, this.#lastAt + this.#spacing()) : Math.min(this.#nextAt, this.#now() + this.#spacing());
    this.#pump();
  }

  /** Resolves when this caller may go: at once (answer true: it did not wait) or in turn; past `deadline`, throttled. */
  acquire(deadline = Infinity): Promise<boolean> | true {
    if (this.#rate === undefined && this.#queue.length === 0) return true;
    const now = this.#now();
    if (this.#queue.length === 0 && now >= this.#nextAt - this.#burstMs()) {
      this.#take(now);
      return true;
    }
    const expected = Math.max(this.#nextAt, now) + this.#queue.length * this.#spacing();
    if (expected - this.#burstMs() > deadline) return Promise.reject(throttledPastDeadline());
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ resolve: () => resolve(false), reject, deadline });
      this.#schedule();
    });
  }

  /** Rejects every waiter (the consumer is closing). */
  close(): void {
    clearTimeout(this.#timer);
    for (const waiter of this.#queue.splice(0)) waiter.reject(new Error("the Stripe budget's governor closed"));
  }

  #pump(): void {
    const now = this.#now();
    while (this.#queue.length > 0 && (this.#rate === undefined || now >= this.#nextAt - this.#burstMs())) {
      const waiter = this.#queue.shift() as Waiter;
      if (now > waiter.deadline) {
        waiter.reject(throttledPastDeadline());
        continue;
      }
      this.#take(now);
      waiter.resolve();
    }
    this.#schedule();
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queue.length === 0) return;
    const delay = Math.max(0, this.#nextAt - this.#burstMs() - this.#now());
    this.#timer = setTimeout(() => this.#pump(), delay);
  }

  #take(now: number): void {
    this.#lastAt = now;
    if (this.#rate !== undefined) this.#nextAt = Math.max(this.#nextAt, now) + this.#spacing();
  }

  #spacing(): number {
    return this.#rate === undefined ? 0 : 1000 / this.#rate;
  }

  #burstMs(): number {
    return this.#rate === undefined || !this.burst ? 0 : this.#spacing() * (Math.max(1, this.#rate * 0.1) - 1);
  }
}

function throttledPastDeadline(): DependencyUnavailableError {
  return new DependencyUnavailableError({ dependency: "stripe", cause: "throttled", limiter: "client" }, "Stripe's budget has no room for this call before the lease ends", { nothingSent: true });
}
