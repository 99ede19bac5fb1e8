import { invalidRequest, resourceMissing, unexpectedState } from "./errors.js";
import { listParamNames, listQuery } from "./list-params.js";
import type { Refund, StripeList } from "./objects.js";
import { metadata, optionalEnum, optionalInteger, optionalString, rejectUnknown } from "./params.js";
import { route, type Route } from "./routes.js";
import { refundsOfChargeKey } from "./store.js";

const createParams = new Set(["charge", "payment_intent", "amount", "reason", "metadata", "expand", "instructions_email"]);
const listParams = new Set([...listParamNames, "charge", "payment_intent"]);

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
    if (!charge.captured || charge.status !== "succeeded") {
      throw unexpectedState("charge_not_refundable", `Charge ${charge.id} has no captured funds to refund (status ${charge.status}, captured ${charge.captured}).`);
    }
    const refundable = charge.amount_captured - charge.amount_refunded;
    if (refundable === 0) throw unexpectedState("charge_already_refunded", `Charge ${charge.id} has already been refunded.`);
    const amount = optionalInteger(params, "amount", { min: 1 }) ?? refundable;
    if (amount > refundable) {
      throw invalidRequest(`Refund amount (${amount}) is greater than unrefunded amount on charge (${refundable})`, { code: "amount_too_large", param: "amount" });
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
    charge.refunded = charge.amount_refunded === charge.amount_captured;
    store.refunds.add(refund);
    return refund;
  }),

  route("GET", "/v1/refunds/:id", { object: "refund" }, ({ store, pathParams: [id = ""] }) => {
    const refund = store.refunds.get(id);
    if (!refund) throw resourceMissing("refund", id, "id");
    return refund;
  }),

  // Newest first, by `charge` or `payment_intent` (a PaymentIntent's refunds are those of its charges) and `created`.
  route("GET", "/v1/refunds", { object: "refund", list: true }, ({ store, params }) => {
    rejectUnknown(params, listParams);
    const chargeId = optionalString(params, "charge");
    const paymentIntentId = optionalString(params, "payment_intent");
    const query = listQuery(params);
    const page =
      chargeId !== undefined
        ? store.refunds.list(query, { index: refundsOfChargeKey(chargeId) })
        : store.refunds.list(query, paymentIntentId !== undefined ? { where: (refund: Refund) => refund.payment_intent === paymentIntentId } : {});
    const body: StripeList<Refund> = { object: "list", data: page.data, has_more: page.hasMore, url: "/v1/refunds" };
    return body;
  }),
];

