// The replica's side of the Stripe budget: a limiter for the account and one per endpoint (operation; limiter.ts
// keeps each one's state), each a pacer (pacer.ts: callers released in turn at the limiter's rate), adapting by AIMD
// (aimd.ts): a 429 cuts at once, the period's step does the rest. With a fleet share (fleet-share.ts, kept in
// PostgreSQL by fleet-budget.ts) the rates are the fleet's, divided among the replicas that have work; without one,
// the replica's own. Unbounded until a ceiling or a 429 says otherwise: with nothing degraded no call ever waits.
import { cutRate, minRate, nextRate } from "./aimd.js";
import { accountLimiter, objectLimiter, type FleetNews, type FleetShare, type LimiterReport } from "./fleet-share.js";
import { Limiter } from "./limiter.js";
import { slowStartPerSecond, slowStartUnboundedPerSecond } from "./slow-start.js";

/**
 * The stated bound: a 429 that said nothing about the budget (demand below the rate, or the first request of slow
 * start) leaves the learned rate as it was, so it serves again within this time of demand returning (a second's
 * slow start at most); tested in test/runtime/resilience/governor-low-demand.test.ts.
 */
export const rateRecoveryMs = 1_000;
/** 429s at low demand that, this many and a tenth of what got through in the period, say the budget is below even that demand. */
const sustainedLowDemandThrottles = 3;


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

export class RateGovernor {
  readonly #limiters = new Map<string, Limiter>();
  readonly #ceiling: number | undefined;
  readonly #fleet: FleetShare | undefined;
  readonly #periodMs: number;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  readonly #timer: NodeJS.Timeout;
  readonly #growth: NodeJS.Timeout;
  readonly #listener: NodeJS.Timeout;
  #members = 1;
  #syncing = false;
  #peeking: Promise<FleetNews> | undefined;
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
    this.#growth = setInterval(() => this.#grow(), this.#periodMs / 4);
    this.#growth.unref();
    this.#listener = setInterval(() => this.#listen(), this.#periodMs / 20);
    this.#listener.unref();
    // The account's limiter from the start: the first sync announces this replica to the fleet.
    this.#limiter(accountLimiter);
  }

  /** This replica's rate for a limiter (undefined: unbounded), for tests and telemetry. */
  rateOf(limiter: string): number | undefined {
    return this.#limiters.get(limiter)?.pacer.rate;
  }

  /**
   * Waits for this call's turn on the operation's and the account's limiters; answers when it went (the governor's
   * clock), to hand back to `answered`. When its turn would come past `deadline` (ms, the governor's clock) it does not
   * wait: DependencyUnavailableError (throttled), and the message waits on the queue instead.
   */
  async acquire(operation: string, options: { deadline?: number } = {}): Promise<number> {
    const endpoint = this.#limiter(`endpoint:${operation}`);
    const account = this.#limiter(accountLimiter);
    for (const limiter of [endpoint, account]) {
      const went = limiter.pacer.acquire(options.deadline);
      if (went === true) continue;
      limiter.saturated = true;
      limiter.waitedSinceGrowth = true;
      limiter.saturatedAt = this.#now();
      await went;
      limiter.saturatedAt = this.#now();
    }
    const sentAt = this.#now();
    endpoint.slowStart?.went(sentAt);
    account.slowStart?.went(sentAt);
    return sentAt;
  }

  /**
   * Told after each call: answered (anything but 429) or throttled, with the limiter Stripe named and when the request
   * went (from `acquire`). A 429 to a request sent before the last cut is stale: the cut already answered it. A 429
   * says where the budget is only when demand met the rate (a caller waited its turn when the request went); at low
   * demand (another system on the account took the bucket a moment) it is retried and cuts nothing, unless such
   * 429s are most of what went (the budget is below even that demand). One about an object (lock_timeout) never cuts.
   */
  answered(operation: string, throttledBy?: string, sentAt = this.#now()): void {
    const account = this.#limiter(accountLimiter);
    const endpoint = this.#limiter(`endpoint:${operation}`);
    const now = this.#now();
    if (throttledBy === undefined) {
      account.admitted += 1;
      endpoint.admitted += 1;
      return;
    }
    if (throttledBy === objectLimiter) return;
    // Stripe names the limiter: an endpoint's 429 slows that endpoint only.
    const limiter = throttledBy.startsWith("endpoint") ? endpoint : account;
    limiter.slowStart?.throttled(sentAt);
    if (sentAt < limiter.cutAt || !this.#demandMet(limiter, sentAt)) return;
    const bounds = limiter.slowStart?.bounds(now);
    if (limiter.slowStart && bounds === undefined) {
      // Nothing got through yet: no estimate of the budget, so no cut to learn from; slow start backs off instead.
      this.#backOff(limiter, now);
      return;
    }
    limiter.throttled += 1;
    // At most one cut a quarter period: the first requests after a cut may meet a bucket still empty.
    if (now - limiter.cutAt < this.#periodMs / 4) return;
    const inSlowStart = limiter.slowStart !== undefined;
    this.#cut(limiter, now, bounds);
    // The fleet's first 429: tell the fleet now (one statement, not the period's sync), so that the replicas still in
    // slow start stop doubling before each meets a 429 of its own (they peek for it, #listen).
    if (inSlowStart && this.#fleet) void this.#fleet.firstThrottled(limiter === account ? accountLimiter : `endpoint:${operation}`).catch(() => undefined);
  }

  /** The request went while callers waited their turn, or 429s at low demand are most of what went this period. */
  #demandMet(limiter: Limiter, sentAt: number): boolean {
    if (sentAt - limiter.saturatedAt <= this.#periodMs / 4) return true;
    limiter.lowDemandThrottled += 1;
    return limiter.lowDemandThrottled >= sustainedLowDemandThrottles && limiter.lowDemandThrottled * 10 >= limiter.admitted;
  }

  /** Slow start met a 429 before anything got through: half the fleet's slow start rate, still in slow start. */
  #backOff(limiter: Limiter, now: number): void {
    limiter.cutAt = now;
    if (limiter.pacer.rate === undefined) return;
    limiter.waitedSinceGrowth = false;
    limiter.fleetSlowStartRate = Math.max(minRate, limiter.fleetSlowStartRate / 2);
    this.#shareSlowStart(limiter);
  }

  /** Cuts at once, from slow start's estimate while nothing is learned (a replica's own bounds are its share already). */
  #cut(limiter: Limiter, now: number, bounds: { estimate: number } | undefined): void {
    limiter.cutAt = now;
    const news = { admittedPerSecond: 0, throttledPerSecond: 1, saturated: true, slowStart: bounds };
    const cut = cutRate({ ...limiter.aimd, rate: limiter.slowStart ? undefined : limiter.pacer.rate }, news);
    // Never a cut that raises.
    limiter.pacer.rate = Math.max(minRate / this.#members, Math.min(cut.rate, limiter.pacer.rate ?? Infinity));
    if (limiter.slowStart) limiter.firstCut = { estimate: limiter.pacer.rate };
    limiter.slowStart = undefined;
    limiter.pacer.burst = true;
    // The period's step must not cut again for the same episode.
    limiter.aimd = { rate: limiter.pacer.rate, knee: cut.knee, cutAt: now, changedAt: now };
  }

  /** One sync now (at start): a replica joining a fleet that already learned the budget starts at its share. */
  async syncNow(): Promise<void> {
    await this.#tick();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    clearInterval(this.#growth);
    clearInterval(this.#listener);
    for (const limiter of this.#limiters.values()) limiter.pacer.close();
    await this.#fleet?.close();
  }

  #limiter(name: string): Limiter {
    let limiter = this.#limiters.get(name);
    if (!limiter) {
      // The account's limiter starts slow unless a ceiling says the budget; an endpoint's is unbounded until its 429.
      const rate = name !== accountLimiter ? undefined : (this.#ceiling ?? slowStartPerSecond);
      limiter = new Limiter(rate === undefined ? undefined : rate / this.#members, this.#now);
      if (name === accountLimiter && this.#ceiling !== undefined) limiter.slowStart = undefined;
      // In slow start the rate is a guess: one request at a time, so the first 429 stops the next.
      if (limiter.slowStart) limiter.pacer.burst = false;
      this.#limiters.set(name, limiter);
    }
    return limiter;
  }

  /**
   * Slow start: the fleet's rate doubles each quarter period while callers wait for it and no 429 came, to this
   * replica or (when it shares a fleet) to the fleet: asked first, as it is each twentieth of a period meanwhile
   * (#listen), so a replica that hears of the fleet's first 429 cuts as if it had met it, and the fleet meets one or
   * two 429s, not one or two per replica.
   */
  #grow(): void {
    const account = this.#limiters.get(accountLimiter);
    if (!account?.slowStart || !account.waitedSinceGrowth || account.pacer.rate === undefined) return;
    if (!this.#listening(account)) {
      this.#double(account);
      return;
    }
    void this.#peek().then(
      (news) => {
        if (!this.#heard(news)) this.#double(account);
      },
      () => this.#double(account),
    );
  }

  #listen(): void {
    const account = this.#limiters.get(accountLimiter);
    if (account && this.#listening(account)) void this.#peek().then((news) => this.#heard(news), () => undefined);
  }

  /**
   * A replica in slow start whose callers wait, in a fleet it can hear: any moment may bring the fleet's first 429, or
   * replicas that started with it (its first sync may have found it alone).
   */
  #listening(account: Limiter): boolean {
    return this.#fleet !== undefined && !this.#syncFailed && account.slowStart !== undefined && account.pacer.rate !== undefined && (account.saturated || account.waitedSinceGrowth);
  }

  /** One peek at the fleet at a time: a caller during one gets its answer, fresh enough. */
  #peek(): Promise<FleetNews> {
    this.#peeking ??= (this.#fleet as FleetShare).peek(this.#periodMs).finally(() => {
      this.#peeking = undefined;
    });
    return this.#peeking;
  }

  /**
   * What the fleet says while this replica is in slow start: the live replicas (its share of slow start's rate), and
   * the limiters the fleet met 429s on: those still in slow start here cut to their estimate, or take the fleet's
   * rate. Answers whether the fleet met any.
   */
  #heard(news: FleetNews): boolean {
    if (news.members !== this.#members) {
      this.#members = Math.max(1, news.members);
      this.#shareSlowStart(this.#limiter(accountLimiter));
    }
    const now = this.#now();
    for (const [name, rate] of news.throttled) {
      const limiter = this.#limiters.get(name);
      if (!limiter?.slowStart) continue;
      if (rate !== undefined) {
        this.#takeShare(limiter, rate / this.#members);
        continue;
      }
      // Nothing got through here yet: no estimate of this replica's share; the fleet's rate comes within a period.
      const bounds = limiter.slowStart.bounds(now);
      if (bounds !== undefined) this.#cut(limiter, now, bounds);
    }
    return news.throttled.size > 0;
  }

  #double(account: Limiter): void {
    if (!account.slowStart || account.pacer.rate === undefined) return;
    account.waitedSinceGrowth = false;
    account.fleetSlowStartRate *= 2;
    this.#shareSlowStart(account);
  }

  /** In slow start a replica paces at its share of the fleet's rate, the live replicas counted at each sync. */
  #shareSlowStart(account: Limiter): void {
    if (!account.slowStart || account.pacer.rate === undefined) return;
    const rate = account.fleetSlowStartRate / this.#members;
    account.pacer.rate = rate > slowStartUnboundedPerSecond ? undefined : rate;
  }

  async #tick(): Promise<void> {
    if (this.#syncing) return;
    const now = this.#now();
    const reports = [...this.#limiters].map(([name, limiter]) => limiter.report(name, now));
    if (!this.#fleet) {
      for (const report of reports) this.#stepAlone(report);
      return;
    }
    this.#syncing = true;
    try {
      const fleet = await this.#fleet.sync(reports, this.#periodMs);
      this.#members = Math.max(1, fleet.members);
      // Slow start is the fleet's: each replica paces at its share of it, whenever it joined.
      this.#shareSlowStart(this.#limiter(accountLimiter));
      for (const [name, rate] of fleet.rates) if (rate !== undefined) this.#takeShare(this.#limiter(name), rate / this.#members);
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

  /**
   * The fleet's rate, this replica's share: slow start ends (the fleet learned the budget), a lower share is a cut
   * (429s to requests sent before it are stale), and a cut of this replica's own stays for two periods, until the
   * fleet has heard of it.
   */
  #takeShare(limiter: Limiter, share: number): void {
    limiter.slowStart = undefined;
    limiter.firstCut = undefined;
    limiter.pacer.burst = true;
    const current = limiter.pacer.rate;
    if (current !== undefined && current < share && this.#now() - limiter.cutAt < 2 * this.#periodMs) return;
    if (current !== undefined && share < current) limiter.cutAt = Math.max(limiter.cutAt, this.#now());
    limiter.pacer.rate = share;
  }

  /** Alone (no fleet, or the database degraded): the period's AIMD step on this replica's own counts. */
  #stepAlone(report: LimiterReport): void {
    const limiter = this.#limiter(report.limiter);
    // Slow start ends at a counted 429 (#cut); until then its rate is slow start's, not the period step's.
    if (limiter.slowStart) return;
    const perSecond = 1000 / this.#periodMs;
    const ceiling = report.limiter === accountLimiter && this.#ceiling !== undefined ? this.#ceiling / this.#members : undefined;
    const news = { admittedPerSecond: report.admitted * perSecond, throttledPerSecond: report.throttled * perSecond, saturated: report.saturated, slowStart: report.slowStart };
    limiter.aimd = nextRate({ ...limiter.aimd, rate: limiter.pacer.rate }, news, { now: this.#now(), periodMs: this.#periodMs, ceiling });
    if (limiter.aimd.rate !== limiter.pacer.rate) limiter.pacer.rate = limiter.aimd.rate;
  }
}
