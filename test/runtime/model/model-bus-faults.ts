// The model's Service Bus faults, injected at the sandbox's broker (sandbox/servicebus/faults.ts) on the run's queue:
// every lock held now lapses at once (each settle of those deliveries then meets MessageLockLost and the message comes
// back to a replica), and the broker answers ServerBusy to settles (complete, abandon, dead-letter) or to lock
// renewals, a few times or until healed. Nothing may be lost (every valid event billed once after the drain) and
// nothing billed twice (checked after every command): a redelivered message meets the guard's record.
import fc from "fast-check";
import type { FaultOperation } from "../../../sandbox/servicebus/index.js";
import { command } from "./model-command.js";
import type { MoneyModel } from "./model-invariants.js";
import type { ModelWorld } from "./model-world.js";

type Cmd = fc.AsyncCommand<MoneyModel, ModelWorld>;

/** Every lock on the run's queue lapses now, as a broker failover or a long GC pause makes it. */
export const locksLost = command("every Service Bus lock lapses", async (_m: MoneyModel, r: ModelWorld) => {
  const lapsed = r.sandbox.serviceBus.faults.expireLock(r.queue);
  r.log(`model: ${lapsed} locks lapsed`);
});

export type BusyOperation = Extract<FaultOperation, "complete" | "abandon" | "deadLetter" | "renewLock">;

/** The broker answers ServerBusy to `operation` on the run's queue, `times` times or (absent) until healed. */
export const serverBusy = (operation: BusyOperation, times: number | undefined) =>
  command(`Service Bus busy on ${operation} x${times ?? "all"}`, async (m: MoneyModel, r: ModelWorld) => {
    if (times === undefined) m.faults.add("service bus");
    r.sandbox.serviceBus.faults.inject({ operation, action: "serverBusy", queue: r.queue, ...(times === undefined ? {} : { times }) });
  });

/** The Service Bus commands, drawn among the others (model-commands.ts). */
export function busFaultCommands(): fc.Arbitrary<Cmd>[] {
  return [
    fc.constant(locksLost),
    fc
      .tuple(fc.constantFrom<BusyOperation>("complete", "abandon", "deadLetter", "renewLock"), fc.option(fc.integer({ min: 1, max: 3 }), { freq: 3 }))
      .map(([operation, times]) => serverBusy(operation, times ?? undefined)),
  ];
}
