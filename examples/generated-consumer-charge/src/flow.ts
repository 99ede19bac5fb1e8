// The Stripe call: one legacy Charge per billing (`charges.create`, as older consumers bill; stripe-node 23 marks
// it deprecated: prefer `--flow payment-intent` for new code). Yours to edit; the guard around it (src/consumer.ts)
// makes it run once per event, and chargeguard's lint rules check the call (an idempotency key on every path, derived
// from the event's business fields).
//
// Stripe forgets an idempotency key after 24 hours: a billing still unknown after that is looked up by the key in
// the charges' metadata before charging again.
import { type ChargeRequest, findChargeByKey, type FlowAdapter, type GuardWorkResult, stripeErrorClass } from "chargeguard/runtime";

export type FlowRequest = ChargeRequest;

/** A charge Stripe answered: failed is a decline (recorded, never retried), anything else is billed. */
function chargeResult(charge: { id: string; status: string; failure_code: string | null; failure_message: string | null }): GuardWorkResult {
  return charge.status === "failed"
    ? { status: "declined", reason: `${charge.failure_code ?? "charge_failed"}: ${charge.failure_message ?? ""}`.trim(), objectId: charge.id }
    : { status: "done", objectId: charge.id };
}

/** A declined card: Stripe raises a card error carrying the failed charge. */
function cardError(error: unknown): { code?: string; decline_code?: string; message: string; charge?: unknown } | undefined {
  const stripeError = error as { type?: unknown } | null;
  return typeof stripeError === "object" && stripeError?.type === "StripeCardError" ? (error as { message: string }) : undefined;
}

export const flow: FlowAdapter<FlowRequest> = {
  name: "charge",
  calls: 1,
  check: (request) => (request.metadata?.idempotency_key ? undefined : "metadata.idempotency_key is required (the look-up after the key window matches it)"),
  async execute(stripe, request, context) {
    if (context.pastKeyWindow && context.attempt > 1) {
      const found = await context.stripeCall("charges.list", () => findChargeByKey(stripe, request, context.idempotencyKey, context.createdAt));
      if (found) return chargeResult(found);
    }
    // Each field spelled out (no spread), so the lint rules see exactly what is sent and with which key; named for
    // telemetry (context.stripeCall): the consumer's trace shows a `stripe charges.create` span for this call.
    const charge = await context.stripeCall("charges.create", () =>
      stripe.charges.create(
        {
          amount: request.amount,
          currency: request.currency,
          customer: request.customer,
          ...(request.source === undefined ? {} : { source: request.source }),
          ...(request.description === undefined ? {} : { description: request.description }),
          metadata: { ...request.metadata, idempotency_key: context.idempotencyKey },
        },
        { idempotencyKey: context.idempotencyKey },
      ),
    );
    return chargeResult(charge);
  },
  classify(error) {
    const declined = cardError(error);
    if (declined) {
      const charge = declined.charge;
      const chargeId = typeof charge === "string" ? charge : (charge as { id?: string } | undefined)?.id;
      return { kind: "declined", reason: `${declined.decline_code || declined.code || "card_declined"}: ${declined.message}`, ...(chargeId ? { objectId: chargeId } : {}) };
    }
    return stripeErrorClass(error);
  },
};
