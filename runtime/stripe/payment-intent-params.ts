// The Stripe request for one usage event. A pure function of the event and its key: Stripe answers "same key,
// different parameters" with an idempotency error, so nothing here may vary between deliveries (no timestamps,
// attempt numbers, message ids or trace ids).
import { createHash } from "node:crypto";
import type Stripe from "stripe";
import type { UsageEvent } from "../event/usage-event.js";

export interface PaymentIntentRequest extends Stripe.PaymentIntentCreateParams {
  amount: number;
  currency: string;
  customer: string;
  payment_method: string;
  confirm: true;
  off_session: true;
  metadata: { idempotency_key: string; customer_id: string; billing_period: string; content_hash: string };
}

export function buildPaymentIntentParams(event: UsageEvent, idempotencyKey: string): PaymentIntentRequest {
  return {
    amount: event.amountCents,
    currency: event.currency,
    customer: event.stripeCustomerId,
    payment_method: event.paymentMethodId,
    confirm: true,
    off_session: true,
    metadata: {
      idempotency_key: idempotencyKey,
      customer_id: event.customerId,
      billing_period: event.billingPeriod,
      content_hash: contentHash(event),
    },
  };
}

/** sha256 of the whole event in a fixed field order: lets reconciliation tell this event's PaymentIntent apart. */
export function contentHash(event: UsageEvent): string {
  const canonical = JSON.stringify([
    ["amountCents", event.amountCents],
    ["billingPeriod", event.billingPeriod],
    ["currency", event.currency],
    ["customerId", event.customerId],
    ["paymentMethodId", event.paymentMethodId],
    ["stripeCustomerId", event.stripeCustomerId],
  ]);
  return createHash("sha256").update(canonical).digest("hex");
}
