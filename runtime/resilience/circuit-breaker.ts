// A breaker per dependency (Stripe, database, vault). Sustained outage failures (5 in a row, no success between)
// open it (429s in a row too: a throttling vault): callers fail fast without a request, the consumer stops taking
// messages, and one probe runs on a backoff (1 s doubling to 10 s, jittered so replicas do not probe in step: short, so a backlog drains within seconds once
// the dependency is back, and still a request every 5-10 s per replica while it is down). The first probe that succeeds closes it.
import type { Dependency } from "../guard/dependency-fault.js";
import { DependencyUnavailableError } from "../guard/dependency-fault.js";

export type BreakerState = "closed" | "open";

export interface CircuitBreakerOptions {
  dependency: Dependency;
  /** One request that answers whether the dependency is back: resolves when it is, rejects when not. */
  probe: () => Promise<void>;
  /** Outage failures in a row that open the breaker; default 5. */
  failureThreshold?: number;
  /** First probe delay, doubling per failed probe up to `maxProbeDelayMs`; defaults 1 s and 10 s. */
  firstProbeDelayMs?: number;
  maxProbeDelayMs?: number;
  /** Told on every change of state (the consumer pauses and resumes intake; telemetry). */
  onChange?: (state: BreakerState, detail: string) => void;
  log?: (line: string) => void;
}

export class CircuitBreaker {
  readonly dependency: Dependency;
  #state: BreakerState = "closed";
  #failures = 0;
  #openedAt = 0;
  /** Seconds spent open in earlier episodes. */
  #pausedBefore = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #options: Required<Pick<CircuitBreakerOptions, "failureThreshold" | "firstProbeDelayMs" | "maxProbeDelayMs">> & CircuitBreakerOptions;

  constructor(options: CircuitBreakerOptions) {
    this.dependency = options.dependency;
    this.#options = { failureThreshold: 5, firstProbeDelayMs: 1_000, maxProbeDelayMs: 10_000, ...options };
  }

  get state(): BreakerState {
    return this.#state;
  }

  /** Seconds the breaker has been open (0 when closed). */
  openSeconds(now = Date.now()): number {
    return this.#state === "open" ? (now - this.#openedAt) / 1000 : 0;
  }

  /** Seconds open in total, the current episode included (telemetry's paused seconds). */
  pausedSeconds(now = Date.now()): number {
    return this.#pausedBefore + this.openSeconds(now);
  }

  /** Throws instead of letting a call through while open: nothing is sent to a dependency known to be down. */
  check(): void {
    if (this.#state === "open") {
      throw new DependencyUnavailableError({ dependency: this.dependency, cause: "outage" }, `${this.dependency} is down (breaker open): not called`, { nothingSent: true });
    }
  }

  succeeded(): void {
    this.#failures = 0;
  }

  /**
   * An outage failure (5xx, timeout, refused connection...) or a throttled answer (429): sustained, either means stop
   * asking for a while. Other failures are no news about the dependency. `retryAfterMs`: the dependency said how long
   * to leave it alone (Retry-After); the first probe waits at least that.
   */
  failed(detail: string, options: { retryAfterMs?: number | undefined } = {}): void {
    if (this.#state === "open" || this.#closed) return;
    this.#failures += 1;
    if (this.#failures < this.#options.failureThreshold) return;
    this.#state = "open";
    this.#openedAt = Date.now();
    const retryAfter = options.retryAfterMs ?? 0;
    const first = Math.max(this.#options.firstProbeDelayMs, retryAfter);
    this.#options.log?.(
      `${this.dependency} is down or throttling (${this.#failures} failures in a row, last: ${detail}): stopped taking messages, they stay on the queue; probing in ${Math.round(first / 1000)} s`,
    );
    this.#options.onChange?.("open", detail);
    this.#schedule(first, retryAfter);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  /** The next probe in `delayMs` jittered down to half, never before `notBeforeMs` (the dependency's Retry-After). */
  #schedule(delayMs: number, notBeforeMs = 0): void {
    if (this.#closed) return;
    const jittered = Math.max(notBeforeMs, delayMs / 2 + (Math.random() * delayMs) / 2);
    this.#timer = setTimeout(() => void this.#probe(delayMs), jittered);
    this.#timer.unref();
  }

  async #probe(waitedMs: number): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#options.probe();
    } catch {
      // Still down: probe again later, one request at a time.
      this.#schedule(Math.min(this.#options.maxProbeDelayMs, waitedMs * 2));
      return;
    }
    if (this.#closed) return;
    const seconds = Math.round(this.openSeconds());
    this.#pausedBefore += this.openSeconds();
    this.#state = "closed";
    this.#failures = 0;
    this.#options.log?.(`${this.dependency} answers again after ${seconds} s: taking messages`);
    this.#options.onChange?.("closed", `back after ${seconds} s`);
  }
}
