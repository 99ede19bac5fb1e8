// The flow-restricted keys of production's world: a charge, invoice or meter-event consumer runs on the restricted key
// its README asks for, which may not read PaymentIntents (Stripe answers 403, the emulator's `missingPermission`).
// A standing property of the run, not a fault: injected when the world opens and again after every heal.
import type { StripeEmulator } from "../../../sandbox/stripe/index.js";
import type { ModelFlow } from "./model-cells.js";

interface RestrictedWorld {
  cell: { flow: ModelFlow };
  infra: { sandbox: { stripe: Pick<StripeEmulator, "faults"> } };
}

/** Every PaymentIntents read is refused 403 for a run whose flow is not PaymentIntents (its key has no such right). */
export function restrictFlowKey(world: RestrictedWorld): void {
  if (world.cell.flow === "payment-intent") return;
  world.infra.sandbox.stripe.faults.inject({ method: "GET", path: /^\/v1\/payment_intents(\/.*)?$/, action: "missingPermission" });
}
