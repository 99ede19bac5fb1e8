import { chargebackOf, closeInquiriesOf } from "./disputes.js";
import { invalidRequest, resourceMissing, unexpectedState } from "./stripe-failures.js";
import { chargeScopedList } from "./list-params.js";
import type { Charge, PaymentIntent, Refund } from "./objects.js";
import { metadata, optionalEnum, optionalInteger, optionalString, rejectUnknown } from "./params.js";
import { route, type Route } from "./routes.js";
import { refundsOfChargeKey } from "./store.js";

const createParams = new Set(["charge", "payment_intent", "amount", "reason", "metadata", "expand", "instructions_email"]);

/** A captured charge refunds what was captured; an uncaptured one releases its authorization (Stripe allows both). */
function refundableAmount(charge: Charge): number {
  return (charge.captured ? charge.amount_captured : charge.amount) - charge.amount_refunded;
}

/** With its authorization released, the PaymentIntent can no longer be captured: Stripe cancels it. */
function releaseAuthorization(intent: PaymentIntent | undefined, now: number): void {
  if (!intent || intent.status !== "requires_capture") return;
  Object.assign(intent, { status: "canceled", amount_capturable: 0, canceled_at: now, cancellation_reason: "automatic" });
}

export const refundRoutes: Route[] = [
  route("POST", "/v1/refunds", { object: "refund" }, ({ store, params }) => {
    rejectUnknown(params, createParams);
    const chargeId = optionalString(params, "charge");
    const paymentIntentId = optionalString(params, "payment_intent");
    if ((chargeId === undefined) === (paymentIntentId === undefined)) {
      throw invalidRequest("Provide exactly one of charge or payment_intent.", { code: "parameter_missing", param: "charge" });
    }
    const intent = paymentIntentId === undefined ? undefined : store.paymentIntent(paymentIntentId, "payment_intent");
    const charge = store.charge(chargeId ?? intent?.latest_charge ?? "", chargeId !== undefined ? "charge" : "payment_intent");
    if (charge.status !== "succeeded") {
      throw unexpectedState("charge_not_refundable", `Charge ${charge.id} has no funds to refund (status ${charge.status}).`);
    }
    if (chargebackOf(store, charge.id)) throw unexpectedState("charge_disputed", `Charge ${charge.id} has been charged back; cannot issue a refund.`);
    const refundable = refundableAmount(charge);
    if (refundable === 0) throw unexpectedState("charge_already_refunded", `Charge ${charge.id} has already been refunded.`);
    const amount = optionalInteger(params, "amount", { min: 1 }) ?? refundable;
    if (amount > refundable) {
      throw invalidRequest(`Refund amount (${amount}) is greater than unrefunded amount on charge (${refundable})`, { code: "amount_too_large", param: "amount" });
    }
    if (!charge.captured && amount !== refundable) {
      throw invalidRequest(`A refund of uncaptured charge ${charge.id} releases its whole authorization (${refundable}); omit amount.`, { param: "amount" });
    }
    const refund: Refund = {
      id: store.ids.next("re"),
      object: "refund",
      amount,
      charge: charge.id,
      created: store.nowSeconds(),
      currency: charge.currency,
      metadata: metadata(params),
      payment_intent: charge.payment_intent,
      reason: optionalEnum(params, "reason", ["duplicate", "fraudulent", "requested_by_customer"]) ?? null,
      status: "succeeded",
      balance_transaction: null,
      customer: charge.customer,
      customer_account: null,
      payment_method: charge.payment_method,
      receipt_number: null,
      source_transfer_reversal: null,
      transfer_reversal: null,
    };
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === (charge.captured ? charge.amount_captured : charge.amount);
    if (!charge.captured) releaseAuthorization(charge.payment_intent ? store.paymentIntents.get(charge.payment_intent) : undefined, store.nowSeconds());
    if (charge.refunded) closeInquiriesOf(store, charge.id);
    store.refunds.add(refund);
    return refund;
  }),

  route("GET", "/v1/refunds/:id", { object: "refund" }, ({ store, pathParams: [id = ""] }) => {
    const refund = store.refunds.get(id);
    if (!refund) throw resourceMissing("refund", id, "id");
    return refund;
  }),

  // Newest first, by `charge` or `payment_intent` (a PaymentIntent's refunds are those of its charges) and `created`.
  route("GET", "/v1/refunds", { object: "refund", list: true }, ({ store, params }) => chargeScopedList(store.refunds, params, refundsOfChargeKey, "/v1/refunds")),
];

