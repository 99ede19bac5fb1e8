// Legacy Charges, as the seeds' consumers bill (stripe-node 23 marks `charges.create` deprecated: prefer
// payment-intent for new code). A charge takes `source` or the customer's default source. After the key window,
// list the customer's charges and match the key in metadata before charging.
import type Stripe from "stripe";
import { GuardInputError } from "../core/errors.js";
import type { GuardWorkResult } from "../guard/guarded-run.js";
import { isStripeErrorOfType } from "../stripe/stripe-error.js";
import { lookupFrom, type FlowAdapter } from "./flow-adapter.js";
import { stripeErrorClass } from "./stripe-error-class.js";
import { flowStripeCalls } from "../../tuning/flow-calls.js";

export interface ChargeRequest {
  amount: number;
  currency: string;
  customer: string;
  /** Absent: the customer's default source. */
  source?: string;
  description?: string;
  /** Must carry `idempotency_key` (the record's key): the look-up after the key window matches it. */
  metadata: Record<string, string> & { idempotency_key: string };
}

function chargeResult(charge: Stripe.Charge): GuardWorkResult {
  return charge.status === "failed"
    ? { status: "declined", reason: `${charge.failure_code ?? "charge_failed"}: ${charge.failure_message ?? ""}`.trim(), objectId: charge.id }
    : { status: "done", objectId: charge.id };
}

export async function findChargeByKey(stripe: Stripe, request: ChargeRequest, idempotencyKey: string, createdAt: Date): Promise<Stripe.Charge | undefined> {
  let found: Stripe.Charge | undefined;
  for await (const charge of stripe.charges.list({ customer: request.customer, created: { gte: lookupFrom(createdAt) }, limit: 100 })) {
    if (charge.metadata?.idempotency_key !== idempotencyKey) continue;
    if (charge.status !== "failed") return charge;
    found ??= charge;
  }
  return found;
}

export const chargeFlow: FlowAdapter<ChargeRequest> = {
  name: "charge",
  calls: flowStripeCalls["charge"],
  check: (request) => (request.metadata?.idempotency_key ? undefined : "metadata.idempotency_key is required (the look-up after the key window matches it)"),
  async execute(stripe, request, context) {
    if (request.metadata.idempotency_key !== context.idempotencyKey) {
      throw new GuardInputError("metadata.idempotency_key must be the record's idempotency key");
    }
    if (context.pastKeyWindow && context.attempt > 1) {
      const found = await context.stripeCall("charges.list", () => findChargeByKey(stripe, request, context.idempotencyKey, context.createdAt));
      if (found) return chargeResult(found);
    }
    return chargeResult(await context.stripeCall("charges.create", () => stripe.charges.create(request, { idempotencyKey: context.idempotencyKey })));
  },
  classify(error) {
    // A declined charge is a StripeCardError carrying the failed charge's id.
    if (isStripeErrorOfType(error, "StripeCardError")) {
      const charge = (error as { charge?: unknown }).charge;
      const chargeId = typeof charge === "string" ? charge : (charge as { id?: string } | undefined)?.id;
      return { kind: "declined", reason: `${error.decline_code || error.code || "card_declined"}: ${error.message}`, ...(chargeId ? { objectId: chargeId } : {}) };
    }
    return stripeErrorClass(error);
  },
};
