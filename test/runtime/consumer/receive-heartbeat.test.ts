// The receive loop's heartbeat on its own: a message stuck in flight fails it, a busy loop is never peeked, an idle
// one is peeked once an interval and stays live, and the stall threshold comes from the queue's lock (tuning).
import { describe, expect, it, vi } from "vitest";
import { receiveHeartbeat } from "../../../runtime/consumer/receive-heartbeat.js";
import { receiveStallMs } from "../../../tuning/index.js";

describe("receiveHeartbeat", () => {
  it("fails a message stuck in flight past its hold plus a stall, though the loop turns", () => {
    let now = 1_000_000;
    const oldest = now;
    const heartbeat = receiveHeartbeat({ lockDurationMs: 60_000, heldMs: 100_000, now: () => now }, () => oldest);
    now += 160_000;
    heartbeat.turned();
    expect(heartbeat.liveness().live).toBe(true);
    now += 1_000;
    heartbeat.turned();
    expect(heartbeat.liveness()).toMatchObject({ live: false, reason: expect.stringContaining("a message has been in flight for 161 s, longer than its hold plus a stall (160 s)") });
  });

  it("peeks only in an interval no message turned the loop in, and counts each answer as a turn", async () => {
    vi.useFakeTimers();
    try {
      let peeks = 0;
      const receiver = {
        peekMessages: async () => {
          peeks++;
          return [];
        },
      };
      const heartbeat = receiveHeartbeat({ lockDurationMs: 60_000, heldMs: 10_000, probeEveryMs: 1_000 }, () => undefined);
      const stop = heartbeat.probe(receiver, () => undefined);
      // Busy: a message turns the loop every 200 ms, so no interval needs a peek.
      for (let tick = 0; tick < 50; tick++) {
        heartbeat.turned();
        await vi.advanceTimersByTimeAsync(200);
      }
      expect(peeks).toBe(0);
      // Idle: one peek an interval, each answer a turn, so it stays live past the stall threshold.
      await vi.advanceTimersByTimeAsync(120_000);
      expect(peeks).toBeGreaterThanOrEqual(100);
      expect(heartbeat.liveness().live).toBe(true);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it("takes its threshold from the queue's lock, never under three probes", () => {
    expect(receiveStallMs(210_000)).toBe(210_000);
    expect(receiveStallMs(5_000)).toBe(30_000);
    expect(receiveStallMs()).toBe(60_000);
  });
});
