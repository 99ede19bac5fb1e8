// The fleet's shared budget within one process (tests, the proving ground's in-process fleets, simulations): the same
// step as fleet-budget.ts keeps in PostgreSQL, on a map.
import type { RateState } from "./aimd.js";
import { firstThrottled, fleetStep, memberPeriod, metThrottling, unlearned, type MemberPeriod } from "./fleet-step.js";
import type { FleetShare } from "./fleet-share.js";

export interface MemoryFleet {
  /** A replica's share of the fleet's budget. */
  member(name: string): FleetShare;
  /** The fleet's state for a limiter (tests). */
  state(limiter: string): RateState;
}

export function memoryFleet(options: { ceilingPerSecond?: number; now?: () => number } = {}): MemoryFleet {
  const now = options.now ?? (() => Date.now());
  const states = new Map<string, RateState>();
  const rows = new Map<string, { seenAt: number; period: MemberPeriod }>();
  const live = (limiter: string, at: number, periodMs: number) =>
    [...rows].filter(([key, row]) => key.endsWith(`\u0000${limiter}`) && row.seenAt > at - 3 * periodMs).map(([, row]) => row.period);
  return {
    state: (limiter) => states.get(limiter) ?? unlearned,
    member: (name) => ({
      close: async () => {
        for (const key of rows.keys()) if (key.startsWith(`${name}\u0000`)) rows.delete(key);
      },
      firstThrottled: async (limiter) => {
        states.set(limiter, firstThrottled(states.get(limiter) ?? unlearned, now()));
      },
      peek: async (periodMs) => ({
        throttled: new Map([...states].filter(([, state]) => metThrottling(state)).map(([limiter, state]) => [limiter, state.rate])),
        members: Math.max(1, live("account", now(), periodMs).length),
      }),
      sync: async (reports, periodMs) => {
        const at = now();
        for (const report of reports) rows.set(`${name}\u0000${report.limiter}`, { seenAt: at, period: memberPeriod(report, periodMs) });
        for (const report of reports) {
          const state = states.get(report.limiter) ?? unlearned;
          const ceiling = report.limiter === "account" ? options.ceilingPerSecond : undefined;
          states.set(report.limiter, fleetStep(state, live(report.limiter, at, periodMs), memberPeriod(report, periodMs), { now: at, periodMs, ceiling }));
        }
        return { rates: new Map([...states].map(([limiter, state]) => [limiter, state.rate])), members: Math.max(1, live("account", at, periodMs).length) };
      },
    }),
  };
}
