// A replica started into a database outage waits for it for as long as it takes (no exit but by signal): a virtual
// hour of refused connections logs one line when the wait begins, at most one a minute, one when the database answers;
// a stop signal ends the wait at once; a wrong DATABASE_URL ends the start at once as a ConsumerStartError (exit 2);
// a bound is opt-in (databaseStartWaitMs).
import { describe, expect, it } from "vitest";
import { openWhenReachable, StartStoppedSignal, stillWaitingLogEveryMs } from "../../../runtime/consumer/database-at-start.js";
import { ConsumerStartError } from "../../../runtime/consumer/servicebus-preflight.js";

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

/** A database that refuses until the virtual clock reaches `upAtMs`, and the wait's virtual time. */
function outage(upAtMs: number) {
  let now = 0;
  let attempts = 0;
  const lines: string[] = [];
  const waiting: boolean[] = [];
  const open = async () => {
    attempts += 1;
    if (now < upAtMs) throw refused();
    return "guard";
  };
  const wait = {
    log: (line: string) => lines.push(line),
    onWaiting: (w: boolean) => waiting.push(w),
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
      // A wait that never ends (or never gives up when bound) would spin forever on this virtual clock: fail it.
      if (now > 10 * upAtMs + 3_600_000) throw new Error(`still waiting after a virtual ${Math.round(now / 60_000)} min`);
    },
  };
  return { open, wait, lines, waiting, attempts: () => attempts };
}

describe("opening the guard at start while the database refuses", () => {
  it("waits a whole virtual hour without giving up, one line to begin, at most one a minute, one when it answers", async () => {
    const hourMs = 3_600_000;
    const run = outage(hourMs);
    await expect(openWhenReachable(run.open, run.wait)).resolves.toBe("guard");
    // 1 s doubling to 10 s: about one attempt per 10 s, never a tight loop.
    expect(run.attempts()).toBeGreaterThan(350);
    expect(run.attempts()).toBeLessThan(hourMs / 10_000 + 10);
    expect(run.lines[0]).toMatch(/^database: unreachable at start \(connect ECONNREFUSED .*\); waiting for it/);
    expect(run.lines.at(-1)).toMatch(/^database: reachable after 36\d\d s; starting$/);
    const still = run.lines.filter((line) => line.startsWith("database: still unreachable after"));
    expect(still.length).toBeGreaterThanOrEqual(hourMs / stillWaitingLogEveryMs - 2);
    expect(still.length).toBeLessThanOrEqual(hourMs / stillWaitingLogEveryMs);
    expect(run.lines).toHaveLength(still.length + 2);
    expect(run.waiting).toEqual([true, false]);
  });

  it("a database that answers at once logs nothing and never reports waiting", async () => {
    const run = outage(0);
    await expect(openWhenReachable(run.open, run.wait)).resolves.toBe("guard");
    expect(run.lines).toEqual([]);
    expect(run.waiting).toEqual([]);
  });

  it("a stop signal ends the wait: StartStoppedSignal, no further attempt", async () => {
    const run = outage(Infinity);
    const stop = new AbortController();
    const sleep = run.wait.sleep;
    const waiting = openWhenReachable(run.open, {
      ...run.wait,
      signal: stop.signal,
      sleep: async (ms) => {
        await sleep(ms);
        if (run.attempts() === 5) stop.abort();
        // A wait that ignores the signal would go on forever: fail it instead.
        if (run.attempts() > 50) throw new Error("the wait went on after the stop signal");
      },
    });
    await expect(waiting).rejects.toBeInstanceOf(StartStoppedSignal);
    expect(run.attempts()).toBe(5);
  });

  it("with the opt-in bound (databaseStartWaitMs) it gives up with the last error", async () => {
    const run = outage(Infinity);
    await expect(openWhenReachable(run.open, { ...run.wait, waitMs: 60_000 })).rejects.toThrow(/ECONNREFUSED/);
    expect(run.lines.at(-1)).toMatch(/giving up the start \(databaseStartWaitMs\)$/);
  });

  it.each([
    ["a host name that does not resolve", Object.assign(new Error("getaddrinfo ENOTFOUND db.example.invalid"), { code: "ENOTFOUND" }), /host that does not resolve/],
    ["a refused login", Object.assign(new Error('password authentication failed for user "billing"'), { code: "28P01" }), /refused by the server/],
    ["no such database", Object.assign(new Error('database "billing" does not exist'), { code: "3D000" }), /database "billing" does not exist/],
  ])("%s is a wrong DATABASE_URL: a ConsumerStartError at once, no wait", async (_name, error, message) => {
    let attempts = 0;
    const failing = openWhenReachable(
      async () => {
        attempts += 1;
        throw error;
      },
      {
        log: () => {},
        sleep: async () => {
          throw new Error("it waited");
        },
      },
    );
    await expect(failing).rejects.toBeInstanceOf(ConsumerStartError);
    await expect(failing).rejects.toThrow(message);
    await expect(failing).rejects.toThrow(/DATABASE_URL/);
    expect(attempts).toBe(1);
  });
});
