// A Stripe outage window: while it lasts every request is answered 500 or 503 (Stripe's `api_error`, which the SDK
// retries), or not answered at all (the client's own timeout ends it). Stripe's status history shows such incidents
// lasting minutes to hours; nothing executes during one, so nothing is saved under an idempotency key.

export type OutageAnswer = 500 | 503 | "no-answer";

export interface StripeOutageSpec {
  /** How the emulator answers meanwhile; default 503. */
  answer?: OutageAnswer;
  /** How long from now (real time); absent: until `end()`. */
  durationMs?: number;
}

export interface OutageStats {
  /** Requests that met the outage. */
  refused: number;
  /** When each of them arrived (ms, monotonic), for "requests per second while down". */
  arrivals: number[];
}

const maxArrivalsKept = 100_000;

export class StripeOutage {
  #answer: OutageAnswer | undefined;
  #until = Infinity;
  readonly #now: () => number;
  readonly stats: OutageStats = { refused: 0, arrivals: [] };

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  begin(spec: StripeOutageSpec = {}): void {
    const answer = spec.answer ?? 503;
    if (answer !== 500 && answer !== 503 && answer !== "no-answer") throw new RangeError(`outage answer must be 500, 503 or "no-answer", got ${String(answer)}`);
    if (spec.durationMs !== undefined && !(Number.isFinite(spec.durationMs) && spec.durationMs > 0)) {
      throw new RangeError(`outage durationMs must be a positive number, got ${spec.durationMs}`);
    }
    this.#answer = answer;
    this.#until = spec.durationMs === undefined ? Infinity : this.#now() + spec.durationMs;
  }

  end(): void {
    this.#answer = undefined;
  }

  get active(): boolean {
    if (this.#answer !== undefined && this.#now() >= this.#until) this.#answer = undefined;
    return this.#answer !== undefined;
  }

  /** How this request is answered, counted; undefined when Stripe is up. */
  meet(): OutageAnswer | undefined {
    if (!this.active) return undefined;
    this.stats.refused += 1;
    if (this.stats.arrivals.length < maxArrivalsKept) this.stats.arrivals.push(this.#now());
    return this.#answer;
  }
}
