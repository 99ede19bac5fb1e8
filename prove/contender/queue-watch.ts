// Watches a contender's queue until the work has settled: nothing active, locked or scheduled, no slow Stripe call
// still in flight, for a quiet period. It polls the emulator's counts (numbers, no message copies), so watching a
// queue of 10,000 messages costs next to nothing.
import { setTimeout as sleep } from "node:timers/promises";
import type { QueueCounts } from "../../sandbox/index.js";

export interface SettleOptions {
  counts(): QueueCounts;
  /** True while the harness knows of work outside the queue (a slow Stripe call still running). */
  busyOutsideQueue(): boolean;
  quietMs: number;
  /** When an unsettled queue is given up on, unless `giveUp` decides instead. */
  deadline: number;
  /** Decides when to give up instead of the fixed deadline (a degraded scenario's wait follows progress: settle-wait.ts). */
  giveUp?(pending: number, now: number): Promise<boolean>;
  pollMs?: number;
  /** Messages still waiting, for a progress bar. */
  onPending?(pending: number): void;
}

export type SettleOutcome = "settled" | "timed-out";

/** Messages a consumer still has to deal with: waiting, held under a lock, or scheduled to come back. */
export const pendingOf = (counts: QueueCounts): number => counts.active + counts.locked + counts.scheduled;

export async function waitUntilSettled(options: SettleOptions): Promise<SettleOutcome> {
  const pollMs = options.pollMs ?? 250;
  let quietSince: number | undefined;
  for (;;) {
    const pending = pendingOf(options.counts());
    options.onPending?.(pending);
    const now = Date.now();
    if (pending === 0 && !options.busyOutsideQueue()) {
      quietSince ??= now;
      if (now - quietSince >= options.quietMs) return "settled";
    } else {
      quietSince = undefined;
    }
    if (options.giveUp ? await options.giveUp(pending, now) : now >= options.deadline) return "timed-out";
    await sleep(pollMs);
  }
}
