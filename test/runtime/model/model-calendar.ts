// The calendar's long edges as commands of their own: 35 days passing (Stripe's meter-event timestamp window, past
// its 24 h identifier window too) and the vault's daily reset crossed with billings in flight. What each may leave
// behind is checked after the run (model-windows.ts): nothing pending recovery cannot reach, nothing held
// unsettleable inside its window, usage too old for Stripe dead-lettered for it, never lost in silence.
import fc from "fast-check";
import { command } from "./model-command.js";
import { makeEvent, restartAfter } from "./model-commands.js";
import type { MoneyModel } from "./model-invariants.js";
import { moneyPaths } from "./model-cells.js";
import { meterWindowMs } from "./model-windows.js";
import { modelSpendCaps, modelTimings } from "./model-world.js";

/**
 * 35 days and an hour pass between deliveries (the fleet stops, the clock moves, it starts again): a meter event
 * pending now is past its identifier window (no per-event read-back: held unsettleable, never re-sent) and its usage
 * past the timestamp window (a delivery of it is refused InvalidEvent); every other flow finds its pending billings
 * by look-up, a month or two later. (A function, as every command here: model-commands.ts imports this file.)
 */
export const meterWindowPasses = () => command("35 days pass (Stripe's meter-event window)", async (_m, r) => restartAfter(r, meterWindowMs + 3_600_000));

/**
 * Not while the database refuses: this command waits for the restarted replicas (to place the clock just before the
 * reset), and a replica's start waits for the database however long (the day and the month only restart the fleet).
 */
const databaseAnswers = (m: Readonly<MoneyModel>): boolean => !m.faults.has("database");

/** The vault counts spend per UTC day: a billing this long in flight is met by the reset. */
const beforeResetMs = 1_500;

/**
 * The vault's daily reset (Keybrake counts each budget's spend per UTC day; the guard's caps are per period and do
 * not reset) crossed with billings in flight: the fleet restarts a minute before UTC midnight, the clock is brought
 * to 1.5 s before it, and two billings are sent whose answers Stripe holds past the client's timeout, so their
 * reservations (the guard's, the vault's day) are held as the day turns, and the SDK's retry of each goes out after.
 */
export const vaultDayResets = (base: number, currency: string) =>
  command(
    `the vault's day resets, two billings in flight (${base}, ${currency})`,
    async (m, r) => {
      const now = new Date(r.sandbox.clock.now());
      const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
      await restartAfter(r, Math.max(0, midnight - now.getTime() - 60_000));
      await Promise.all(r.replicas);
      const left = midnight - r.sandbox.clock.now();
      if (left > beforeResetMs) r.sandbox.clock.advance(left - beforeResetMs);
      m.faults.add("stripe");
      r.sandbox.stripe.faults.inject({ method: "POST", path: moneyPaths[r.cell.flow], times: 2, action: "latency", ms: modelTimings.stripeLatencyMs });
      for (let i = 0; i < 2; i++) {
        const event = await makeEvent(r, "valid", base * 100 + m.events.length, currency);
        m.events.push(event);
        await r.sandbox.send(r.queue, { body: event.body, messageId: `model-${r.run}-${m.messages++}` });
      }
      while (r.sandbox.clock.now() < midnight + beforeResetMs) await new Promise((resolve) => setTimeout(resolve, 100));
    },
    databaseAnswers,
  );

/** The calendar's commands fast-check draws (the day passing and the month turning are model-commands.ts's). */
export function calendarCommands(): fc.Arbitrary<ReturnType<typeof command>>[] {
  return [
    fc.constant(null).map(meterWindowPasses),
    fc.tuple(fc.integer({ min: 100, max: 2_000 }), fc.constantFrom(...modelSpendCaps.currencies)).map(([base, currency]) => vaultDayResets(base, currency)),
  ];
}
