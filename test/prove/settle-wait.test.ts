// The degraded scenarios' settle wait (prove/contender/settle-wait.ts): after the recovery it waits while the backlog (queued
// messages plus pending records) reaches new lows, stops when it has not for the stall period or at the cap, and never
// judges while the window lasts. Pure decisions over given clocks: no fleet, no database, no sleeping.
import { describe, expect, it } from "vitest";
import { waitUntilSettled } from "../../prove/contender/queue-watch.js";
import { decideSettleWait, ProgressWait, settleWaitDefaults, type SettleWaitSample, type SettleWaitState } from "../../prove/contender/settle-wait.js";
import type { QueueCounts } from "../../sandbox/index.js";

const policy = { stallMs: 60_000, capAfterRecoveryMs: 300_000 };
const recoveredAt = 100_000;

/** Feeds (now, backlog) samples in order; returns each decision. `recovered` null: the window still lasts. */
function run(samples: [number, number][], recovered: number | null = recoveredAt) {
  let state: SettleWaitState = {};
  return samples.map(([now, backlog]) => {
    const sample: SettleWaitSample = { now, backlog, recoveredAt: recovered ?? undefined, plannedRecoveryAt: recoveredAt };
    const next = decideSettleWait(state, sample, policy);
    state = next.state;
    return next.decision;
  });
}

describe("settle wait decision", () => {
  it("defaults: a minute without progress, five minutes after the recovery at most", () => {
    expect(settleWaitDefaults).toEqual(policy);
  });

  it("keeps waiting past the old fixed minute while the backlog keeps shrinking", () => {
    // 19 left at the recovery, one billed every 30 s: at 73 s the fixed wait gave up; this one waits on.
    const samples: [number, number][] = Array.from({ length: 9 }, (_, i) => [recoveredAt + i * 30_000, 19 - i]);
    expect(run(samples).every((decision) => decision.wait)).toBe(true);
  });

  it("stops when the backlog has not reached a new low for the stall period, counted from its last low", () => {
    const decisions = run([
      [recoveredAt, 19],
      [recoveredAt + 50_000, 12],
      // back up (a retry scheduled again) and down to 12 again: no new low, no progress
      [recoveredAt + 80_000, 15],
      [recoveredAt + 109_999, 12],
      [recoveredAt + 110_000, 12],
    ]);
    expect(decisions.slice(0, 4).every((decision) => decision.wait)).toBe(true);
    expect(decisions[4]).toEqual({ wait: false, reason: "stalled" });
  });

  it("counts the stall from the recovery, not from the first sample", () => {
    expect(run([[recoveredAt + 59_999, 5]])[0]).toEqual({ wait: true });
    expect(run([[recoveredAt + 60_000, 5]])[0]).toEqual({ wait: false, reason: "stalled" });
  });

  it("stops at the cap however fast the backlog still shrinks", () => {
    const samples: [number, number][] = Array.from({ length: 12 }, (_, i) => [recoveredAt + i * 27_500, 1_000 - i]);
    const decisions = run(samples);
    expect(decisions.slice(0, 11).every((decision) => decision.wait)).toBe(true);
    expect(decisions[11]).toEqual({ wait: false, reason: "capped" });
    expect(run([[recoveredAt + 299_999, 3], [recoveredAt + 300_000, 2]]).at(-1)).toEqual({ wait: false, reason: "capped" });
  });

  it("never judges the backlog while the window lasts; only the cap from the planned recovery bounds it", () => {
    const decisions = run([[recoveredAt - 10_000, 50], [recoveredAt + 200_000, 50]], null);
    expect(decisions).toEqual([{ wait: true }, { wait: true }]);
    expect(run([[recoveredAt + 300_000, 50]], null)[0]).toEqual({ wait: false, reason: "capped" });
  });
});

describe("ProgressWait over a contender", () => {
  it("adds the pending records to the queue's backlog, counted only after the recovery, and says why it stopped", async () => {
    const window: { recoveredAt?: number } = {};
    const records = 4;
    let counted = 0;
    const wait = new ProgressWait({
      recoveredAt: () => window.recoveredAt,
      plannedRecoveryAt: recoveredAt,
      pendingRecords: async () => {
        counted++;
        return records;
      },
      policy,
      recordsEveryMs: 0,
    });
    expect(await wait.giveUp(10, recoveredAt - 1)).toBe(false);
    expect(counted).toBe(0);
    window.recoveredAt = recoveredAt;
    expect(await wait.giveUp(10, recoveredAt)).toBe(false);
    // The queue is empty but four records are still pending: the backlog is 4, a new low.
    expect(await wait.giveUp(0, recoveredAt + 50_000)).toBe(false);
    expect(await wait.giveUp(0, recoveredAt + 109_999)).toBe(false);
    expect(wait.describeStop()).toBeUndefined();
    expect(await wait.giveUp(0, recoveredAt + 110_000)).toBe(true);
    expect(wait.describeStop()).toBe("did not settle: no progress for 60 s (110 s after the recovery, backlog 4)");
  });

  it("keeps the last record count when counting fails (the queue still tells progress)", async () => {
    let fail = false;
    const wait = new ProgressWait({
      recoveredAt: () => recoveredAt,
      plannedRecoveryAt: recoveredAt,
      pendingRecords: async () => {
        if (fail) throw new Error("connection reset");
        return 3;
      },
      policy,
      recordsEveryMs: 0,
    });
    expect(await wait.giveUp(5, recoveredAt)).toBe(false);
    fail = true;
    expect(await wait.giveUp(5, recoveredAt + 300_000)).toBe(true);
    expect(wait.describeStop()).toBe("did not settle: the 300 s cap after the recovery reached (300 s after the recovery, backlog 8)");
  });
});

describe("waitUntilSettled", () => {
  const counts = (pending: number): QueueCounts => ({ active: pending, locked: 0, scheduled: 0, deferred: 0, deadLettered: 0, deliveries: 0, deadLetterDeliveries: 0 });

  it("asks giveUp instead of the deadline, with the queue's pending count", async () => {
    const asked: number[] = [];
    const outcome = await waitUntilSettled({
      counts: () => counts(7),
      busyOutsideQueue: () => false,
      quietMs: 0,
      deadline: 0,
      pollMs: 1,
      giveUp: async (pending) => {
        asked.push(pending);
        return asked.length >= 3;
      },
    });
    expect(outcome).toBe("timed-out");
    expect(asked).toEqual([7, 7, 7]);
  });

  it("settles an empty queue whatever giveUp would say", async () => {
    const outcome = await waitUntilSettled({ counts: () => counts(0), busyOutsideQueue: () => false, quietMs: 0, deadline: 0, pollMs: 1, giveUp: async () => true });
    expect(outcome).toBe("settled");
  });
});
