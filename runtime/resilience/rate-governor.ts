// The replica's side of the Stripe budget: a limiter for the account and one per endpoint (operation), each a GCRA
// token bucket (every caller reserves its own instant, so waiters are served in order with no polling), adapting by
// AIMD: a 429 cuts at once, a second of waiting callers with no 429 raises a little. With a fleet share
// (fleet-budget.ts) the rates are the fleet's, divided among the live replicas; without one, the replica's own.
// Unbounded until a ceiling or a 429 says otherwise: with nothing degraded no call ever waits.
import { setTimeout as sleep } from "node:timers/promises";
import { DependencyUnavailableError } from "./dependency-fault.js";

/** The account's limiter; endpoint limiters are `endpoint:<operation>`. */
export const accountLimiter = "account";

export interface LimiterReport {
  limiter: string;
  /** Requests that got an answer other than 429 since the last report. */
  admitted: number;
  throttled: number;
  /** A caller had to wait for a token since the last report: the rate, not the demand, is the bound. */
  saturated: boolean;
}

/** What a fleet share answers: each limiter's fleet rate (undefined: unbounded) and the live replicas sharing it. */
export interface FleetRates {
  rates: ReadonlyMap<string, number | undefined>;
  members: number;
}

export interface FleetShare {
  sync(reports: readonly LimiterReport[], periodMs: number): Promise<FleetRates>;
  close(): Promise<void>;
}

export interface RateGovernorOptions {
  /** The account's ceiling for the whole fleet (STRIPE_REQUESTS_PER_SECOND); absent: none, adapt to 429s only. */
  ceilingPerSecond?: number;
  /** Shares the rates with the other replicas (PostgreSQL); absent: this replica's own. */
  fleet?: FleetShare;
  /** How often rates are adjusted and synced; default 1 s. */
  periodMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

/** AIMD: cut to 90% on a 429 (at most once a period), raise by 2% (at least 0.2/s) per saturated period. */
export const cutFactor = 0.9;
const minRatePerSecond = 0.2;
const raise = (rate: number) => Math.max(0.2, rate * 0.02);

class Limiter {
  /** Requests per second for this replica; undefined: unbounded. */
  share: number | undefined;
  /** GCRA: the instant the next request may go. */
  #next = 0;
  admitted = 0;
  throttled = 0;
  saturated = false;
  lastCutAt = -Infinity;
  /** When requests were admitted over the last period, kept while unbounded: the first cut starts from their rate. */
  readonly recent: number[] = [];
  constructor(share: number | undefined) {
    this.share = share;
  }
  /** The instant a request arriving `now` may go (not yet reserved). */
  slot(now: number): number {
    if (this.share === undefined) return now;
    // A little burst (10% of a second's worth) absorbs timer jitter without letting a herd through.
    const burstMs = Math.max(0, (1000 / this.share) * (Math.max(1, this.share * 0.1) - 1));
    return Math.max(now, this.#next - burstMs);
  }
  reserve(at: number): void {
    if (this.share === undefined) return;
    this.#next = Math.max(this.#next, at) + 1000 / this.share;
  }
  report(name: string): LimiterReport {
    const report = { limiter: name, admitted: this.admitted, throttled: this.throttled, saturated: this.saturated };
    this.admitted = 0;
    this.throttled = 0;
    this.saturated = false;
    return report;
  }
}

export class RateGovernor {
  readonly #limiters = new Map<string, Limiter>();
  readonly #ceiling: number | undefined;
  readonly #fleet: FleetShare | undefined;
  readonly #periodMs: number;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  readonly #timer: NodeJS.Timeout;
  #members = 1;
  #syncing = false;
  #syncFailed = false;

  constructor(options: RateGovernorOptions = {}) {
    const ceiling = options.ceilingPerSecond;
    if (ceiling !== undefined && !(Number.isFinite(ceiling) && ceiling > 0)) throw new RangeError(`Stripe requests per second must be a positive number, got ${ceiling}`);
    this.#ceiling = ceiling;
    this.#fleet = options.fleet;
    this.#periodMs = options.periodMs ?? 1_000;
    this.#now = options.now ?? (() => performance.now());
    this.#log = options.log ?? (() => {});
    this.#timer = setInterval(() => void this.#tick(), this.#periodMs);
    this.#timer.unref();
  }

  /** This replica's rate for a limiter (undefined: unbounded), for tests and telemetry. */
  rateOf(limiter: string): number | undefined {
    return this.#limiters.get(limiter)?.share;
  }

  /**
   * Waits for this call's turn on the account's and the operation's limiters. Past `deadline` (ms, the governor's
   * clock) it does not wait: it throws DependencyUnavailableError (throttled), and the message waits on the queue.
   */
  async acquire(operation: string, options: { deadline?: number; signal?: AbortSignal } = {}): Promise<void> {
    const account = this.#limiter(accountLimiter);
    const endpoint = this.#limiter(`endpoint:${operation}`);
    if (account.share === undefined && endpoint.share === undefined) return;
    const now = this.#now();
    const at = Math.max(account.slot(now), endpoint.slot(now));
    if (options.deadline !== undefined && at > options.deadline) {
      account.saturated = true;
      throw new DependencyUnavailableError({ dependency: "stripe", cause: "throttled", limiter: "client" }, "Stripe's budget has no room for this call before the lease ends");
    }
    account.reserve(at);
    endpoint.reserve(at);
    if (at > now) {
      account.saturated = true;
      endpoint.saturated = true;
      await sleep(at - now, undefined, options.signal ? { signal: options.signal } : {});
    }
  }

  /** Told after each call: answered (anything but 429) or throttled, with the limiter Stripe named. */
  answered(operation: string, throttledBy?: string): void {
    const account = this.#limiter(accountLimiter);
    const endpoint = this.#limiter(`endpoint:${operation}`);
    if (throttledBy === undefined) {
      for (const limiter of [account, endpoint]) {
        limiter.admitted += 1;
        if (limiter.share === undefined) this.#remember(limiter);
      }
      return;
    }
    // Stripe names the limiter: an endpoint's 429 slows that endpoint only.
    const limiter = throttledBy.startsWith("endpoint") ? endpoint : account;
    limiter.throttled += 1;
    const now = this.#now();
    if (now - limiter.lastCutAt < this.#periodMs) return;
    limiter.lastCutAt = now;
    // Unbounded until now: start from what got through over the last period.
    const base = limiter.share ?? Math.max(minRatePerSecond, (this.#recentCount(limiter, now) * 1000) / this.#periodMs);
    limiter.share = Math.max(minRatePerSecond / this.#members, base * cutFactor);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#fleet?.close();
  }

  #remember(limiter: Limiter): void {
    const now = this.#now();
    limiter.recent.push(now);
    if (limiter.recent.length > 64 && (limiter.recent[0] as number) < now - this.#periodMs) limiter.recent.splice(0, this.#staleCount(limiter, now));
  }

  #recentCount(limiter: Limiter, now: number): number {
    return limiter.recent.length - this.#staleCount(limiter, now);
  }

  #staleCount(limiter: Limiter, now: number): number {
    let stale = 0;
    while (stale < limiter.recent.length && (limiter.recent[stale] as number) < now - this.#periodMs) stale += 1;
    return stale;
  }

  #limiter(name: string): Limiter {
    let limiter = this.#limiters.get(name);
    if (!limiter) {
      limiter = new Limiter(name === accountLimiter ? this.#ceiling : undefined);
      this.#limiters.set(name, limiter);
    }
    return limiter;
  }

  async #tick(): Promise<void> {
    if (this.#syncing) return;
    const reports = [...this.#limiters].map(([name, limiter]) => limiter.report(name));
    if (!this.#fleet) {
      for (const report of reports) this.#raiseLocally(report);
      return;
    }
    this.#syncing = true;
    try {
      const fleet = await this.#fleet.sync(reports, this.#periodMs);
      this.#members = Math.max(1, fleet.members);
      for (const [name, rate] of fleet.rates) this.#limiter(name).share = rate === undefined ? undefined : rate / this.#members;
      if (this.#syncFailed) this.#log("Stripe budget: sharing with the fleet again");
      this.#syncFailed = false;
    } catch (error) {
      // The database is degraded: keep adapting alone until it is back.
      if (!this.#syncFailed) this.#log(`Stripe budget: cannot share with the fleet (${error instanceof Error ? error.message : String(error)}); adapting alone meanwhile`);
      this.#syncFailed = true;
      for (const report of reports) this.#raiseLocally(report);
    } finally {
      this.#syncing = false;
    }
  }

  #raiseLocally(report: LimiterReport): void {
    const limiter = this.#limiter(report.limiter);
    if (limiter.share === undefined || report.throttled > 0 || !report.saturated) return;
    const ceiling = report.limiter === accountLimiter && this.#ceiling !== undefined ? this.#ceiling / this.#members : Infinity;
    limiter.share = Math.min(ceiling, limiter.share + raise(limiter.share));
  }
}

/** The fleet-wide AIMD step, the same rule fleet-budget.ts writes in SQL (kept here so both read alike). */
export function nextFleetRate(rate: number | undefined, report: { throttled: number; saturated: boolean; admittedPerSecond: number }, ceiling: number | undefined): number | undefined {
  const capped = (value: number) => Math.min(ceiling ?? Infinity, value);
  if (report.throttled > 0) return Math.max(minRatePerSecond, (rate ?? Math.max(minRatePerSecond, report.admittedPerSecond)) * cutFactor);
  if (rate === undefined) return ceiling;
  return report.saturated ? capped(rate + raise(rate)) : capped(rate);
}
