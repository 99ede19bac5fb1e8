// Sustained degradation of the Stripe emulator, beside the per-request faults (faults.ts): a rate limit
// (rate-limit.ts) and outage windows (outage.ts), set as start options, changed while running, or laid out as a
// timed plan ("down from 10 s to 70 s, then limited to 10/s"). The server asks `meet()` once per request, before
// the idempotency layer: a throttled or refused request never executes and is never saved under its key.
import { StripeOutage, type OutageAnswer, type StripeOutageSpec } from "./outage.js";
import { StripeRateLimiter, type RateLimitedReason, type StripeRateLimit } from "./rate-limit.js";

/** One entry of a degradation plan: at `atMs` after the plan starts, change the rate limit and/or the outage. */
export interface StripeDegradationStep {
  atMs: number;
  /** A new rate limit; `null` lifts it. */
  rateLimit?: StripeRateLimit | null;
  /** Begin an outage; `null` ends it. */
  outage?: StripeOutageSpec | null;
}

export type DegradedAnswer =
  | { kind: "pass"; release: () => void }
  | { kind: "throttled"; reason: RateLimitedReason }
  | { kind: "outage"; answer: OutageAnswer };

export interface DegradationStats {
  /** Requests the rate limiter admitted and throttled (0 without one). */
  admitted: number;
  throttled: number;
  byReason: Partial<Record<RateLimitedReason, number>>;
  /** Requests answered by an outage, and when they arrived (ms, monotonic clock). */
  outageRefused: number;
  outageArrivals: readonly number[];
}

const noop = () => {};

export class StripeDegradation {
  #limiter: StripeRateLimiter | undefined;
  readonly #outage: StripeOutage;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #retired = { admitted: 0, throttled: 0, byReason: {} as Partial<Record<RateLimitedReason, number>> };

  constructor(options: { rateLimit?: StripeRateLimit; outage?: StripeOutageSpec } = {}) {
    this.#outage = new StripeOutage();
    if (options.rateLimit) this.#limiter = new StripeRateLimiter(options.rateLimit);
    if (options.outage) this.#outage.begin(options.outage);
  }

  /** Sets (or, with undefined, lifts) the rate limit; its buckets start full. */
  rateLimit(limit: StripeRateLimit | undefined): void {
    this.#retire();
    this.#limiter = limit === undefined ? undefined : new StripeRateLimiter(limit);
  }

  outage(spec: StripeOutageSpec = {}): void {
    this.#outage.begin(spec);
  }

  endOutage(): void {
    this.#outage.end();
  }

  /** Runs a plan on real time; the returned function cancels what has not happened yet (stop() does too). */
  plan(steps: readonly StripeDegradationStep[]): () => void {
    const mine: NodeJS.Timeout[] = [];
    for (const step of steps) {
      if (!(Number.isFinite(step.atMs) && step.atMs >= 0)) throw new RangeError(`plan step atMs must be a non-negative number, got ${step.atMs}`);
    }
    for (const step of steps) {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        if (step.rateLimit !== undefined) this.rateLimit(step.rateLimit ?? undefined);
        if (step.outage !== undefined) {
          if (step.outage === null) this.endOutage();
          else this.outage(step.outage);
        }
      }, step.atMs);
      timer.unref();
      this.#timers.add(timer);
      mine.push(timer);
    }
    return () => {
      for (const timer of mine) {
        clearTimeout(timer);
        this.#timers.delete(timer);
      }
    };
  }

  /** How the emulator answers this request: pass (call `release` once answered), throttled, or an outage. */
  meet(method: string, path: string): DegradedAnswer {
    const down = this.#outage.meet();
    if (down !== undefined) return { kind: "outage", answer: down };
    if (this.#limiter === undefined) return { kind: "pass", release: noop };
    const admitted = this.#limiter.admit(method, path);
    return "refused" in admitted ? { kind: "throttled", reason: admitted.refused } : { kind: "pass", release: admitted.release };
  }

  get stats(): DegradationStats {
    const current = this.#limiter?.stats;
    const byReason: Partial<Record<RateLimitedReason, number>> = { ...this.#retired.byReason };
    for (const [reason, count] of Object.entries(current?.byReason ?? {}) as [RateLimitedReason, number][]) {
      byReason[reason] = (byReason[reason] ?? 0) + count;
    }
    return {
      admitted: this.#retired.admitted + (current?.admitted ?? 0),
      throttled: this.#retired.throttled + (current?.throttled ?? 0),
      byReason,
      outageRefused: this.#outage.stats.refused,
      outageArrivals: this.#outage.stats.arrivals,
    };
  }

  stop(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** A replaced limiter's counts stay in the totals. */
  #retire(): void {
    const stats = this.#limiter?.stats;
    if (!stats) return;
    this.#retired.admitted += stats.admitted;
    this.#retired.throttled += stats.throttled;
    for (const [reason, count] of Object.entries(stats.byReason) as [RateLimitedReason, number][]) {
      this.#retired.byReason[reason] = (this.#retired.byReason[reason] ?? 0) + count;
    }
  }
}
