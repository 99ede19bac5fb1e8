// The Stripe SDK's own retry refused after its first try was executed, then a day: one command, because each part
// alone heals before it matters. The first try of a billing is held past the client's timeout (Stripe executes it),
// the SDK's retry of it and every request after meet 429 until healed (the guard's run ends on waits that sent
// nothing), and a day passes on the clock before the billing is run again. A guard that judged "nothing sent" by the
// last call alone forgot the record and ran it afresh under a key Stripe had pruned: a second charge (a meter event
// counted twice). A billing Stripe refused (a customer it does not have) is left for the reconciler past the key
// window, which holds it unsettleable for an operator; one that kept its place would starve the records behind it.
import fc from "fast-check";
import { idempotencyWindowMs } from "../../../sandbox/stripe/index.js";
import { moneyPaths } from "./model-cells.js";
import { command } from "./model-command.js";
import { makeEvent, restartAfter } from "./model-commands.js";
import type { EventKind } from "./model-invariants.js";
import { modelSpendCaps, modelTimings } from "./model-world.js";

export const retryRefusedThenADay = (kind: EventKind, base: number, currency: string) =>
  command(
    `an SDK retry met 429s after its first try (${kind}, ${base}, ${currency}), then a day passes`,
    async (m, r) => {
      m.faults.add("stripe");
      const { faults } = r.sandbox.stripe;
      const path = moneyPaths[r.cell.flow];
      const slow = faults.inject({ method: "POST", path, times: 1, action: "latency", ms: modelTimings.stripeLatencyMs });
      faults.inject({ method: "POST", path, action: "rateLimit", when: () => slow.hits > 0 });
      const event = await makeEvent(r, kind, base * 100 + m.events.length, currency);
      m.events.push(event);
      await r.sandbox.send(r.queue, { body: event.body, messageId: `model-${r.run}-${m.messages++}` });
      // The first try's timeout, the SDK's retry and the waits until the lease's end.
      await new Promise((resolve) => setTimeout(resolve, modelTimings.stripeTimeoutMs + modelTimings.leaseMs + 1_000));
      await restartAfter(r, idempotencyWindowMs + 60_000);
    },
  );

/**
 * A billing Stripe would take or one it refuses, in a capped currency; four times in the list (twice was as likely as
 * a fresh send until the merged command set doubled the list), so the small size meets it in most files (with it
 * once, two of two files at the default size missed a defect only it reaches).
 */
export function retryRefusedCommands(): fc.Arbitrary<ReturnType<typeof command>>[] {
  const retried = fc
    .tuple(fc.constantFrom<EventKind>("valid", "unknown-customer"), fc.integer({ min: 100, max: 2_000 }), fc.constantFrom(...modelSpendCaps.currencies))
    .map(([kind, base, currency]) => retryRefusedThenADay(kind, base, currency));
  return [retried, retried, retried, retried];
}

