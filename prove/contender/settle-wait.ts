// How long a degraded scenario's contender is waited for once its dependency is back: as long as its backlog keeps
// shrinking, up to a hard cap. A fixed wait after the window judged a fleet that was still working off its backlog
// (database-failover: "did not settle within 73 s, 19 lost" while the queue was still draining). The backlog is the
// queue's messages (active, scheduled, locked) plus the contender's pending records; progress is the backlog reaching a
// new low. The queue settling (queue-watch.ts) ends the wait early, whatever this says.

export interface SettleWaitPolicy {
  /** Stop when the backlog has not reached a new low for this long (from the recovery at the earliest). */
  stallMs: number;
  /** Stop this long after the recovery, progress or not. */
  capAfterRecoveryMs: number;
}

/**
 * 60 s without progress: longer than every pause a draining fleet takes after a recovery (the naive contender's
 * longest retry backoff, 37.5 s; a duplicate waiting out its twin's lease, about 22 s; a `pg` query timeout, 20 s), and
 * the fixed wait it replaces. 5 minutes: 20 times the drain the generated consumer needs at the scenarios' scale.
 */
export const settleWaitDefaults: SettleWaitPolicy = { stallMs: 60_000, capAfterRecoveryMs: 300_000 };

export interface SettleWaitState {
  /** The lowest backlog seen since the recovery, and when it was reached (the recovery until the first sample). */
  lowest?: number;
  progressAt?: number;
}

export interface SettleWaitSample {
  now: number;
  backlog: number;
  /** When the dependency came back; undefined while the window lasts. */
  recoveredAt: number | undefined;
  /** When the window is planned to end: the cap counts from here while no recovery was seen (a bound, never a wait). */
  plannedRecoveryAt: number;
}

export type SettleWaitDecision = { wait: true } | { wait: false; reason: "stalled" | "capped" };

/** One poll's decision, and the state for the next. Pure: the wait's rules are tested without a fleet. */
export function decideSettleWait(state: SettleWaitState, sample: SettleWaitSample, policy: SettleWaitPolicy = settleWaitDefaults): { state: SettleWaitState; decision: SettleWaitDecision } {
  const { now, backlog, recoveredAt } = sample;
  const capAt = (recoveredAt ?? sample.plannedRecoveryAt) + policy.capAfterRecoveryMs;
  // While the window lasts, the backlog grows by design: nothing to judge yet.
  if (recoveredAt === undefined) return { state, decision: now >= capAt ? { wait: false, reason: "capped" } : { wait: true } };
  const next: SettleWaitState =
    state.lowest === undefined || backlog < state.lowest ? { lowest: backlog, progressAt: state.lowest === undefined ? recoveredAt : now } : state;
  if (now >= capAt) return { state: next, decision: { wait: false, reason: "capped" } };
  if (now - (next.progressAt ?? recoveredAt) >= policy.stallMs) return { state: next, decision: { wait: false, reason: "stalled" } };
  return { state: next, decision: { wait: true } };
}

export interface ProgressWaitSources {
  recoveredAt(): number | undefined;
  plannedRecoveryAt: number;
  /** The contender's records still pending (0 for a contender that keeps none). */
  pendingRecords(): Promise<number>;
  policy?: SettleWaitPolicy;
  /** How often the records are counted (the queue's counts are read every poll). */
  recordsEveryMs?: number;
}

/** The decision over a running contender: `giveUp` for waitUntilSettled, and why it gave up, for the run's error. */
export class ProgressWait {
  #state: SettleWaitState = {};
  #records = 0;
  #recordsAt = Number.NEGATIVE_INFINITY;
  #stopped: { reason: "stalled" | "capped"; backlog: number; afterRecoveryMs: number | undefined } | undefined;

  constructor(private readonly sources: ProgressWaitSources) {}

  async giveUp(queuePending: number, now: number): Promise<boolean> {
    const recoveredAt = this.sources.recoveredAt();
    if (recoveredAt !== undefined && now - this.#recordsAt >= (this.sources.recordsEveryMs ?? 1_000)) {
      // A count that fails (the reader's own connection) keeps the last one: the queue still tells progress.
      this.#records = await this.sources.pendingRecords().catch(() => this.#records);
      this.#recordsAt = now;
    }
    const backlog = queuePending + this.#records;
    const { state, decision } = decideSettleWait(this.#state, { now, backlog, recoveredAt, plannedRecoveryAt: this.sources.plannedRecoveryAt }, this.sources.policy);
    this.#state = state;
    if (decision.wait) return false;
    this.#stopped = { reason: decision.reason, backlog, afterRecoveryMs: recoveredAt === undefined ? undefined : now - recoveredAt };
    return true;
  }

  /** Why the wait ended unsettled, for the contender's row; undefined while it has not. */
  describeStop(): string | undefined {
    const stop = this.#stopped;
    if (!stop) return undefined;
    const policy = this.sources.policy ?? settleWaitDefaults;
    const after = stop.afterRecoveryMs === undefined ? "before the recovery" : `${Math.round(stop.afterRecoveryMs / 1000)} s after the recovery`;
    const why = stop.reason === "capped" ? `the ${Math.round(policy.capAfterRecoveryMs / 1000)} s cap after the recovery reached` : `no progress for ${Math.round(policy.stallMs / 1000)} s`;
    return `did not settle: ${why} (${after}, backlog ${stop.backlog})`;
  }
}
