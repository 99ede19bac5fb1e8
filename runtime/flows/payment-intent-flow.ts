// The default flow: one PaymentIntent per billing (confirm, off session), keyed by the record's key. After the key
// window, list the customer's PaymentIntents and match the key in metadata before creating one.
import type Stripe from "stripe";
import { ChargeguardSignal } from "../core/errors.js";
import type { PaymentIntentRequest } from "../stripe/payment-intent-params.js";
import type { GuardWorkResult } from "../guard/guarded-run.js";
import { lookupFrom, type FlowAdapter } from "./flow-adapter.js";
import { stripeErrorClass } from "./stripe-error-class.js";
import { flowStripeCalls } from "../../tuning/flow-calls.js";

const chargedStatuses = new Set<Stripe.PaymentIntent.Status>(["succeeded", "processing", "requires_capture"]);

/**
 * A PaymentIntent still `processing` (a bank debit takes days, and may yet fail): not done, not declined. The record
 * stays pending, as an invoice still open after pay does, so a retry or the reconciler asks Stripe again (past the key
 * window its look-up reads the current status) instead of recording done what may still fail.
 */
export class PaymentIntentProcessing extends ChargeguardSignal {
  override name = "PaymentIntentProcessing";
  constructor(readonly paymentIntentId: string) {
    super(`PaymentIntent ${paymentIntentId} is processing: its payment may still fail; ask Stripe again later`);
  }
}

export function paymentIntentResult(intent: Stripe.PaymentIntent): GuardWorkResult {
  if (intent.status === "processing") throw new PaymentIntentProcessing(intent.id);
  // The SDK attaches the response's headers to what it returns (not in the PaymentIntent type).
  const headers = (intent as { lastResponse?: { headers?: Record<string, string | undefined> } }).lastResponse?.headers;
  const replayed = headers?.["idempotent-replayed"] === "true" ? { replayed: true } : {};
  return chargedStatuses.has(intent.status)
    ? { status: "done", objectId: intent.id, ...replayed }
    : { status: "declined", reason: `payment_intent_${intent.status}`, objectId: intent.id, ...replayed };
}

/** The PaymentIntent carrying `idempotencyKey` in its metadata, charged ones first; strongly consistent (list, not search). */
export async function findPaymentIntentByKey(
  stripe: Stripe,
  request: { customer?: string | undefined },
  idempotencyKey: string,
  createdAt: Date,
): Promise<Stripe.PaymentIntent | undefined> {
  let found: Stripe.PaymentIntent | undefined;
  const customer = request.customer;
  for await (const intent of stripe.paymentIntents.list({ ...(customer ? { customer } : {}), created: { gte: lookupFrom(createdAt) }, limit: 100 })) {
    if (intent.metadata?.idempotency_key !== idempotencyKey) continue;
    if (chargedStatuses.has(intent.status)) return intent;
    found ??= intent;
  }
  return found;
}

export const paymentIntentFlow: FlowAdapter<PaymentIntentRequest> = {
  name: "payment-intent",
  calls: flowStripeCalls["payment-intent"],
  async execute(stripe, request, context) {
    if (context.pastKeyWindow && context.attempt > 1) {
      const found = await context.stripeCall("payment_intents.list", () => findPaymentIntentByKey(stripe, request, context.idempotencyKey, context.createdAt));
      if (found) return paymentIntentResult(found);
    }
    // A vault's refusal is translated by flowContext's stripeCall, as for every flow.
    return paymentIntentResult(await context.stripeCall("payment_intents.create", () => stripe.paymentIntents.create(request, { idempotencyKey: context.idempotencyKey })));
  },
  classify: (error) => stripeErrorClass(error),
};
