// The model's breaker outages while the fleet bills in arrears: the fleet bills last month's usage (a period other
// than the calendar month), and the vault mints no key for the calendar month (nothing is forecast for it: the vault
// front refuses it, vault-front.ts). A Stripe or vault outage long enough to open the replicas' breakers, then healed:
// the breakers' probes must ask with the key of the period billing uses, or they are refused for ever and the fleet
// bills nothing. The fleet must bill the period's events within a stated time of the outage ending.
import fc from "fast-check";
import { command } from "./model-command.js";
import { makeEvent } from "./model-commands.js";
import { moneyPaths, usesVault } from "./model-cells.js";
import { timesBilledEvent } from "./model-event-match.js";
import type { ModelEvent, MoneyModel } from "./model-invariants.js";
import { restrictFlowKey } from "./restricted-key.js";
import { queueCalm, until } from "./model-waits.js";
import { modelSpendCaps, type ModelWorld } from "./model-world.js";

export type OutageOf = "stripe" | "vault";

/** Events billed last month during the outage; how long the breakers get to open; how long the fleet has once healed. */
export const arrearsOutage = { events: 6, openWithinMs: 10_000, billedWithinMs: 15_000 };

const monthBefore = (month: string): string => {
  const [year, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(year, m - 2, 1)).toISOString().slice(0, 7);
};

/** The month before both the calendar month (the one the consumer knows of) and the virtual clock's. */
function arrearsPeriod(world: ModelWorld, calendar: string): string {
  const virtual = new Date(world.sandbox.clock.now()).toISOString().slice(0, 7);
  return monthBefore(virtual < calendar ? virtual : calendar);
}

/** Ends the outage only (the calendar month's key stays refused: nothing forecast for it). */
function endOutage(r: ModelWorld, of: OutageOf): void {
  if (of === "vault") r.infra.keybrake.degradeKeyService("up");
  else {
    r.sandbox.stripe.faults.clear();
    restrictFlowKey(r);
  }
}

/**
 * With nothing else faulty and the queue calm (billing asks only for the arrears period's keys): the outage opens
 * the breakers while `events` billings of last month arrive, then ends; every one must be billed within the bound.
 */
export const outageInArrears = (of: OutageOf) =>
  command(
    `a ${of} outage opens the breakers while the fleet bills in arrears, then ends`,
    async (m: MoneyModel, r: ModelWorld) => {
      if (r.kill.armed || !(await until(() => queueCalm(r), 5_000))) {
        r.log("model: the fleet is busy (a crash armed or the queue not calm): the arrears outage is not run");
        return;
      }
      const calendar = new Date().toISOString().slice(0, 7);
      const period = arrearsPeriod(r, calendar);
      const opened = r.logs.length;
      r.infra.front.refusesKeysFor = calendar;
      try {
        if (of === "vault") r.infra.keybrake.degradeKeyService("unavailable");
        else r.sandbox.stripe.faults.inject({ method: "POST", path: moneyPaths[r.cell.flow], action: "serverError", saved: false });
        const events: ModelEvent[] = [];
        for (let i = 0; i < arrearsOutage.events; i++) {
          // Small: two outages in one run bill the same arrears period under one vault budget (model-world.ts).
          const event = await makeEvent(r, "valid", 7_000 + m.events.length * 10 + i, modelSpendCaps.uncapped);
          events.push({ ...event, body: { ...event.body, billingPeriod: period } });
        }
        m.events.push(...events);
        for (const event of events) await r.sandbox.send(r.queue, { body: event.body, messageId: `model-${r.run}-${m.messages++}` });
        // Both replicas' breakers: one replica still closed would bill the period and hide the other's probe.
        const openIn = (replica: number) => r.logs.slice(opened).some((line) => line.startsWith(`r${replica}g`) && line.includes(`${of} is down or throttling`));
        if (!(await until(() => openIn(0) && openIn(1), arrearsOutage.openWithinMs))) r.log(`model: not both breakers opened within ${arrearsOutage.openWithinMs} ms of the ${of} outage`);
        endOutage(r, of);
        const billed = () => events.filter((e) => timesBilledEvent(r.sandbox.stripe.ledger, r.cell.flow, e.body) >= 1).length;
        if (!(await until(() => billed() === events.length, arrearsOutage.billedWithinMs))) {
          throw new Error(`billing ${period} in arrears: ${billed()} of ${events.length} billed within ${arrearsOutage.billedWithinMs} ms of the ${of} outage ending (a breaker's probe refused?)`);
        }
      } finally {
        r.infra.front.refusesKeysFor = undefined;
      }
    },
    (m) => usesVault(m.cell) && m.faults.size === 0,
  );

/**
 * The arrears outages, drawn among the others (model-commands.ts), four times as often as one of them (twice was
 * enough before the merged command set doubled the list): they run only in a vault cell with nothing else faulty, and
 * the npm-test size must meet one (defect 3 reintroduced, money-model.e2e.test.ts).
 */
export function breakerFaultCommands(): fc.Arbitrary<fc.AsyncCommand<MoneyModel, ModelWorld>>[] {
  const outage = fc.constantFrom<OutageOf>("stripe", "vault").map(outageInArrears);
  return [outage, outage, outage, outage];
}
