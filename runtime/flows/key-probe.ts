// The cheapest request each flow's restricted key may make, so a consumer paused on a refused key asks Stripe with a
// request its own key is allowed (a charge, invoice or meter-event key cannot read PaymentIntents: a probe that asks
// it to would be refused for ever). A meter-event key may only write meter events: the probe posts an empty one,
// which Stripe refuses as invalid (400: the key was accepted) and which creates nothing.
import type Stripe from "stripe";
import type { FlowName } from "../../tuning/flow-calls.js";

const probes: Record<FlowName, (stripe: Stripe) => Promise<unknown>> = {
  "payment-intent": (stripe) => stripe.paymentIntents.list({ limit: 1 }),
  charge: (stripe) => stripe.charges.list({ limit: 1 }),
  invoice: (stripe) => stripe.invoices.list({ limit: 1 }),
  // No event, no identifier: a request Stripe answers 400 without recording anything (not a meter event sent).
  "meter-event": (stripe) => stripe.rawRequest("POST", "/v1/billing/meter_events", {}),
};

/** One request the flow's key may make (a flow of the team's own: its built-in namesake's, else a PaymentIntents read). */
export function keyProbeRequest(flow: string): (stripe: Stripe) => Promise<unknown> {
  return probes[flow as FlowName] ?? probes["payment-intent"];
}
