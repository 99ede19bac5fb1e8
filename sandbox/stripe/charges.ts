import { attemptCharge, cardDeclined } from "./charging.js";
import { invalidRequest } from "./stripe-failures.js";
import { listParamNames, listQuery } from "./list-params.js";
import type { Charge, StripeList } from "./objects.js";
import { currency, metadata, optionalBoolean, optionalString, rejectUnknown, requiredInteger } from "./params.js";
import { route, type Route } from "./routes.js";
import { paymentIntentChargesKey } from "./store.js";

// The legacy Charges API (deprecated in the SDK, still served by Stripe): the seeds' consumers call it.

const createParams = new Set([
  "amount", "currency", "customer", "source", "description", "metadata", "capture", "receipt_email",
  "statement_descriptor", "statement_descriptor_suffix", "expand", "transfer_group", "on_behalf_of",
  "application_fee_amount", "shipping", "transfer_data",
]);
const listParams = new Set([...listParamNames, "customer", "payment_intent"]);

export const chargeRoutes: Route[] = [
  route("POST", "/v1/charges", { object: "charge" }, ({ store, params }) => {
    rejectUnknown(params, createParams);
    const amount = requiredInteger(params, "amount", { min: 1, max: 99_999_999 });
    const chargeCurrency = currency(params);
    const customerId = optionalString(params, "customer");
    const customer = customerId === undefined ? undefined : store.customer(customerId);
    const source = optionalString(params, "source") ?? customer?.default_source ?? customer?.invoice_settings.default_payment_method ?? undefined;
    if (source === undefined) {
      throw customer
        ? invalidRequest("Cannot charge a customer that has no active card", { code: "missing", param: "card" })
        : invalidRequest("Must provide source or customer.", { code: "parameter_missing", param: "source" });
    }
    const outcome = attemptCharge(store, {
      amount,
      currency: chargeCurrency,
      customer: customerId ?? null,
      paymentMethod: source,
      paymentMethodParam: "source",
      capture: optionalBoolean(params, "capture") ?? true,
      paymentIntent: null,
      description: optionalString(params, "description") ?? null,
      metadata: metadata(params),
      // The Charges API has no authentication step: a card that needs it is declined.
      offSession: true,
    });
    if (outcome.kind === "declined") throw cardDeclined(outcome.error);
    if (outcome.kind === "requiresAction") throw new Error("unreachable: off-session charges never ask for action");
    // A bank debit answers with the charge `pending`, as Stripe's legacy ACH charges did.
    return outcome.charge;
  }),

  route("GET", "/v1/charges/:id", { object: "charge" }, ({ store, pathParams: [id = ""] }) => store.charge(id, "id")),

  route("GET", "/v1/charges", { object: "charge", list: true }, ({ store, params }) => {
    rejectUnknown(params, listParams);
    const customer = optionalString(params, "customer");
    const paymentIntent = optionalString(params, "payment_intent");
    const query = listQuery(params);
    const page =
      paymentIntent !== undefined
        ? store.charges.list(query, { index: paymentIntentChargesKey(paymentIntent), ...(customer !== undefined ? { where: (c: Charge) => c.customer === customer } : {}) })
        : store.charges.list(query, customer !== undefined ? { customer } : {});
    const body: StripeList<Charge> = { object: "list", data: page.data, has_more: page.hasMore, url: "/v1/charges" };
    return body;
  }),
];
