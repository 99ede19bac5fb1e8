// Stripe's rate limiters, as its rate-limits page describes them: a global request rate per account, a rate per
// endpoint (each named operation: `POST /v1/payment_intents` and `GET /v1/payment_intents/:id` are two endpoints,
// both counted against the global rate too) and a concurrency limiter. A request past one is answered 429
// `rate_limit` before anything executes (never saved under its idempotency key), with `Stripe-Rate-Limited-Reason`
// naming the limiter. Real time, not the emulator's business clock: rate limits are about wall-clock seconds.

export interface StripeRateLimit {
  /** The account's budget: requests per second, and how many may arrive at once after a quiet spell (default perSecond). */
  global?: { perSecond: number; burst?: number };
  /** Every endpoint's own budget (Stripe's default is 25/s); burst defaults to perSecond. */
  perEndpoint?: { perSecond: number; burst?: number };
  /** Requests executing at once across the account. */
  concurrency?: number;
}

/** The `Stripe-Rate-Limited-Reason` values the emulator answers with. */
export type RateLimitedReason = "global-rate" | "endpoint-rate" | "global-concurrency";

export interface RateLimitStats {
  admitted: number;
  throttled: number;
  byReason: Record<RateLimitedReason, number>;
}

/** A token bucket on the monotonic clock. */
class TokenBucket {
  #tokens: number;
  #at: number;
  constructor(
    readonly perSecond: number,
    readonly burst: number,
    now: number,
  ) {
    this.#tokens = burst;
    this.#at = now;
  }
  available(now: number): number {
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    return this.#tokens;
  }
  take(): void {
    this.#tokens -= 1;
  }
}

/** The endpoint a request is: its method and path with object ids replaced (`GET /v1/payment_intents/:id`). */
export function endpointOf(method: string, path: string): string {
  // An id has a digit or a capital after its prefix (`pi_3Ab...`); a resource name (`payment_intents`) has neither.
  return `${method} ${path.replace(/\/[a-z]+_(?=[a-z]*[0-9A-Z])[A-Za-z0-9]+(?=\/|$)/g, "/:id")}`;
}

export class StripeRateLimiter {
  readonly #limit: StripeRateLimit;
  readonly #now: () => number;
  readonly #global: TokenBucket | undefined;
  readonly #endpoints = new Map<string, TokenBucket>();
  #inFlight = 0;
  readonly stats: RateLimitStats = { admitted: 0, throttled: 0, byReason: { "global-rate": 0, "endpoint-rate": 0, "global-concurrency": 0 } };

  constructor(limit: StripeRateLimit, now: () => number = () => performance.now()) {
    checkLimit(limit);
    this.#limit = limit;
    this.#now = now;
    const global = limit.global;
    this.#global = global === undefined ? undefined : new TokenBucket(global.perSecond, global.burst ?? global.perSecond, now());
  }

  /**
   * Admits a request (answer: a release to call when it is answered) or names the limiter that refuses it. A refused
   * request takes no token: a client that is throttled and waits is not punished for having asked.
   */
  admit(method: string, path: string): { release: () => void } | { refused: RateLimitedReason } {
    const now = this.#now();
    if (this.#limit.concurrency !== undefined && this.#inFlight >= this.#limit.concurrency) return this.#refuse("global-concurrency");
    const endpoint = this.#endpointBucket(endpointOf(method, path), now);
    if (endpoint !== undefined && endpoint.available(now) < 1) return this.#refuse("endpoint-rate");
    if (this.#global !== undefined && this.#global.available(now) < 1) return this.#refuse("global-rate");
    endpoint?.take();
    this.#global?.take();
    this.stats.admitted += 1;
    this.#inFlight += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight -= 1;
      },
    };
  }

  #endpointBucket(endpoint: string, now: number): TokenBucket | undefined {
    const per = this.#limit.perEndpoint;
    if (per === undefined) return undefined;
    let bucket = this.#endpoints.get(endpoint);
    if (!bucket) {
      bucket = new TokenBucket(per.perSecond, per.burst ?? per.perSecond, now);
      this.#endpoints.set(endpoint, bucket);
    }
    return bucket;
  }

  #refuse(reason: RateLimitedReason): { refused: RateLimitedReason } {
    this.stats.throttled += 1;
    this.stats.byReason[reason] += 1;
    return { refused: reason };
  }
}

function checkLimit(limit: StripeRateLimit): void {
  const positive = (name: string, value: number | undefined) => {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new RangeError(`rate limit ${name} must be a positive number, got ${value}`);
  };
  positive("global.perSecond", limit.global?.perSecond);
  positive("global.burst", limit.global?.burst);
  positive("perEndpoint.perSecond", limit.perEndpoint?.perSecond);
  positive("perEndpoint.burst", limit.perEndpoint?.burst);
  if (limit.concurrency !== undefined && !(Number.isSafeInteger(limit.concurrency) && limit.concurrency > 0)) {
    throw new RangeError(`rate limit concurrency must be a positive integer, got ${limit.concurrency}`);
  }
}
