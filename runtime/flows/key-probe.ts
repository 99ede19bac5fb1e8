// The request each flow's key must be allowed, so a consumer paused on a refused key asks Stripe what billing will
// ask: its flow's creates, each posted empty, which Stripe refuses as invalid (400: the key and its right to write
// that resource were accepted) and which creates nothing. A read would not do: restricted keys set Read/Write/None per
// resource, so a key that may read PaymentIntents but not write them passed a list, the consumer resumed, met the
// refusal and paused again at the probe's pace (and a charge, invoice or meter-event key may not read PaymentIntents
// at all: a probe that asked it to was refused for ever).
import type Stripe from "stripe";
import { isStripeErrorOfType } from "../stripe/stripe-error.js";
import type { FlowName } from "../../tuning/flow-calls.js";

/** Posts an empty create: Stripe's 400 (a required parameter missing) says the key may write there; other errors throw. */
async function emptyCreate(stripe: Stripe, path: string): Promise<void> {
  try {
    await stripe.rawRequest("POST", path, {});
  } catch (error) {
    if (!isStripeErrorOfType(error, "StripeInvalidRequestError")) throw error;
  }
}

const probes: Record<FlowName, (stripe: Stripe) => Promise<unknown>> = {
  "payment-intent": (stripe) => emptyCreate(stripe, "/v1/payment_intents"),
  charge: (stripe) => emptyCreate(stripe, "/v1/charges"),
  // The invoice flow writes both: an invoice, then its items.
  invoice: async (stripe) => {
    await emptyCreate(stripe, "/v1/invoices");
    await emptyCreate(stripe, "/v1/invoiceitems");
  },
  "meter-event": (stripe) => emptyCreate(stripe, "/v1/billing/meter_events"),
};

/** The requests the flow's key must be allowed (a flow of the team's own: its built-in namesake's, else a PaymentIntent create). */
export function keyProbeRequest(flow: string): (stripe: Stripe) => Promise<unknown> {
  return probes[flow as FlowName] ?? probes["payment-intent"];
}
