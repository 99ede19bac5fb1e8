import { randomUUID } from "node:crypto";
import type Stripe from "stripe";

/** Options shared by every Stripe write: a key so a network retry inside stripe-node is not a second write. */
export function requestOptions(): Stripe.RequestOptions {
  return {
    idempotencyKey: randomUUID(),
    stripeAccount: process.env.STRIPE_CONNECTED_ACCOUNT,
  };
}
