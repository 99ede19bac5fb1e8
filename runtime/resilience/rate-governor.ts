// The replica's side of the Stripe budget: a limiter for the account and one per endpoint (operation), each a pacer
// (pacer.ts: callers released in turn at the limiter's rate), adapting by AIMD (aimd.ts): a 429 cuts at once, the
// period's step does the rest. With a fleet share (fleet-budget.ts) the rates are the fleet's, divided among the
// replicas that have work; without one, the replica's own. Unbounded until a ceiling or a 429 says otherwise: with
// nothing degraded no call ever waits.
import { initialRateState, nextRate, type RateState } from "./aimd.js";
import { Pacer } from "./pacer.js";

/** The account's limiter; endpoint limiters are `endpoint:<operation>`. */
export const accountLimiter = "account";

export interface LimiterReport {
  limiter: string;
  /** Requests that got an answer other than 429 since the last report. */
  admitted: number;
  throttled: number;
  /** A caller had to wait for its turn since the last report: the rate, not the demand, is the bound. */
  saturated: boolean;
}

/** What a fleet share answers: each limiter's fleet rate (undefined: unbounded) and the replicas sharing it. */
export interface FleetRates {
  rates: ReadonlyMap<string, number | undefined>;
  /** The live replicas: the rate is divided among them. */
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

/** A 429 cuts this replica's share at once (at most once a period), before the period's step says more. */
const cutFactor = 0.9;
const minRatePerSecond = 0.2;

class Limiter {
  readonly pacer: Pacer;
  admitted = 0;
  throttled = 0;
  saturated = false;
  lastCutAt = -Infinity;
  /** Answers over the last period, counted while unbounded: the first cut starts from their rate. */
  recent: number[] = [];
  /** Without a fleet: this replica's own AIMD state. */
  aimd: RateState = initialRateState;
  constructor(rate: number | undefined, now: () => number) {
    this.pacer = new Pacer(rate, now);
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
    // The account's limiter from the start: the first sync announces this replica to the fleet.
    this.#limiter(accountLimiter);
  }

  /** This replica's rate for a limiter (undefined: unbounded), for tests and telemetry. */
  rateOf(limiter: string): number | undefined {
    return this.#limiters.get(limiter)?.pacer.rate;
  }

  /**
   * Waits for this call's turn on the operation's and the account's limiters. When its turn would come past
   * `deadline` (ms, the governor's clock) it does not wait: DependencyUnavailableError (throttled), and the message
   * waits on the queue instead.
   */
  async acquire(operation: string, options: { deadline?: number } = {}): Promise<void> {
    const endpoint = this.#limiter(`endpoint:${operation}`);
    const account = this.#limiter(accountLimiter);
    for (const limiter of [endpoint, account]) {
      const went = limiter.pacer.acquire(options.deadline);
      if (went === true) continue;
      limiter.saturated = true;
      await went;
    }
  }

  /** Told after each call: answered (anything but 429) or throttled, with the limiter Stripe named. */
  answered(operation: string, throttledBy?: string): void {
    const account = this.#limiter(accountLimiter);
    const endpoint = this.#limiter(`endpoint:${operation}`);
    const now = this.#now();
    if (throttledBy === undefined) {
      for (const limiter of [account, endpoint]) {
        limiter.admitted += 1;
        if (limiter.pacer.rate === undefined) limiter.recent.push(now);
      }
      return;
    }
    // Stripe names the limiter: an endpoint's 429 slows that endpoint only.
    const limiter = throttledBy.startsWith("endpoint") ? endpoint : account;
    limiter.throttled += 1;
    if (now - limiter.lastCutAt < this.#periodMs) return;
    limiter.lastCutAt = now;
    // Unbounded until now: start from what got through over the last period.
    const base = limiter.pacer.rate ?? Math.max(minRatePerSecond, (limiter.recent.filter((at) => at > now - this.#periodMs).length * 1000) / this.#periodMs);
    limiter.recent = [];
    limiter.pacer.rate = Math.max(minRatePerSecond / this.#members, base * cutFactor);
    // The period's step must not cut again for the same episode.
    limiter.aimd = { rate: limiter.pacer.rate, knee: base, cutAt: now, changedAt: now };
  }

  /** One sync now (at start): a replica joining a fleet that already learned the budget starts at its share. */
  async syncNow(): Promise<void> {
    await this.#tick();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    for (const limiter of this.#limiters.values()) limiter.pacer.close();
    await this.#fleet?.close();
  }

  #limiter(name: string): Limiter {
    let limiter = this.#limiters.get(name);
    if (!limiter) {
      limiter = new Limiter(name === accountLimiter ? this.#ceiling : undefined, this.#now);
      this.#limiters.set(name, limiter);
    }
    return limiter;
  }

  async #tick(): Promise<void> {
    if (this.#syncing) return;
    const now = this.#now();
    for (const limiter of this.#limiters.values()) limiter.recent = limiter.recent.filter((at) => at > now - this.#periodMs);
    const reports = [...this.#limiters].map(([name, limiter]) => limiter.report(name));
    if (!this.#fleet) {
      for (const report of reports) this.#stepAlone(report);
      return;
    }
    this.#syncing = true;
    try {
      const fleet = await this.#fleet.sync(reports, this.#periodMs);
      this.#members = Math.max(1, fleet.members);
      // A fleet still unbounded leaves a local cut in place (a 429 this replica met before the fleet heard of it).
      for (const [name, rate] of fleet.rates) if (rate !== undefined) this.#limiter(name).pacer.rate = rate / this.#members;
      if (this.#syncFailed) this.#log("Stripe budget: sharing with the fleet again");
      this.#syncFailed = false;
    } catch (error) {
      // The database is degraded: keep adapting alone until it is back.
      if (!this.#syncFailed) this.#log(`Stripe budget: cannot share with the fleet (${error instanceof Error ? error.message : String(error)}); adapting alone meanwhile`);
      this.#syncFailed = true;
      for (const report of reports) this.#stepAlone(report);
    } finally {
      this.#syncing = false;
    }
  }

  /** Alone (no fleet, or the database degraded): the period's AIMD step on this replica's own counts. */
  #stepAlone(report: LimiterReport): void {
    const limiter = this.#limiter(report.limiter);
    const perSecond = 1000 / this.#periodMs;
    const ceiling = report.limiter === accountLimiter && this.#ceiling !== undefined ? this.#ceiling / this.#members : undefined;
    const news = { admittedPerSecond: report.admitted * perSecond, throttledPerSecond: report.throttled * perSecond, saturated: report.saturated };
    limiter.aimd = nextRate({ ...limiter.aimd, rate: limiter.pacer.rate }, news, { now: this.#now(), periodMs: this.#periodMs, ceiling });
    if (limiter.aimd.rate !== limiter.pacer.rate) limiter.pacer.rate = limiter.aimd.rate;
  }
}
