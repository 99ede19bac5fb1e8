// The model's key faults: Stripe refuses the replicas' key (401, a revoked or rolled key) or its right to the flow's
// endpoint (403, a restricted key whose permission was taken away) for a while, then heals. The consumer pauses its
// intake and probes with the key billing uses and a request that key may make (flows/key-probe.ts); the pause must end
// through that probe once the key works again, in every vault cell (the vault's keys alone, beside a plain
// STRIPE_API_KEY, or the plain key) and under the flow-restricted keys (restricted-key.ts), or the drain's bound
// (model-invariants.ts: the fleet bills again within the stated time after every fault ends) fails.
import fc from "fast-check";
import { command } from "./model-command.js";
import { moneyPaths } from "./model-cells.js";
import type { MoneyModel } from "./model-invariants.js";
import type { ModelWorld } from "./model-world.js";

export type KeyRefusal = "revoked" | "permission";

/**
 * Until healed, every request on the flow's resources (its money requests, look-ups and its pause's probe) is refused:
 * 401 (the key is revoked or rolled) or 403 (the restricted key lost its right to them). Customers stay readable, as
 * the model makes its own there with another key.
 */
export const keyRefused = (refusal: KeyRefusal) =>
  command(`stripe refuses the key (${refusal === "revoked" ? "401, revoked" : "403, permission taken"})`, async (m: MoneyModel, r: ModelWorld) => {
    m.faults.add("stripe key");
    r.sandbox.stripe.faults.inject({ path: moneyPaths[r.cell.flow], action: refusal === "revoked" ? "revokedKey" : "missingPermission" });
  });

/** The key commands, drawn among the others (model-commands.ts). */
export function keyFaultCommands(): fc.Arbitrary<fc.AsyncCommand<MoneyModel, ModelWorld>>[] {
  return [fc.constantFrom<KeyRefusal>("revoked", "permission").map(keyRefused)];
}
