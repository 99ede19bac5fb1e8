// Watches a contender's queue until the work has settled: nothing active, locked or scheduled, no slow Stripe call
// still in flight, for a quiet period. While watching it tracks each message's delivery count, so the run can
// report deliveries (sampled: a message settled between two looks counts as delivered once).
import { setTimeout as sleep } from "node:timers/promises";
import type { QueueSnapshot } from "../../sandbox/servicebus/index.js";

export interface SettleOptions {
  inspect(): QueueSnapshot;
  /** True while the harness knows of work outside the queue (a slow Stripe call still running). */
  busyOutsideQueue(): boolean;
  quietMs: number;
  deadline: number;
  pollMs?: number;
  /** Messages still waiting, for a progress bar. */
  onPending?(pending: number): void;
}

export type SettleOutcome = "settled" | "timed-out";

export class QueueWatch {
  readonly #deliveries = new Map<number, number>();

  /** Sampled deliveries so far: each message seen counts its highest delivery count, and at least once. */
  get deliveries(): number {
    let total = 0;
    for (const count of this.#deliveries.values()) total += Math.max(1, count);
    return total;
  }

  observe(snapshot: QueueSnapshot): number {
    for (const list of [snapshot.active, snapshot.locked, snapshot.scheduled, snapshot.deferred, snapshot.deadLettered]) {
      for (const message of list) {
        const seen = this.#deliveries.get(message.sequenceNumber) ?? 0;
        if (message.deliveryCount > seen || !this.#deliveries.has(message.sequenceNumber)) {
          this.#deliveries.set(message.sequenceNumber, Math.max(seen, message.deliveryCount));
        }
      }
    }
    return snapshot.active.length + snapshot.locked.length + snapshot.scheduled.length;
  }

  async settle(options: SettleOptions): Promise<SettleOutcome> {
    const pollMs = options.pollMs ?? 250;
    let quietSince: number | undefined;
    for (;;) {
      const pending = this.observe(options.inspect());
      options.onPending?.(pending);
      const now = Date.now();
      if (pending === 0 && !options.busyOutsideQueue()) {
        quietSince ??= now;
        if (now - quietSince >= options.quietMs) return "settled";
      } else {
        quietSince = undefined;
      }
      if (now >= options.deadline) return "timed-out";
      await sleep(pollMs);
    }
  }
}
