import { attemptCharge, cardDeclined } from "./charging.js";
import { invalidRequest, unexpectedState } from "./stripe-failures.js";
import { listParamNames, listQuery } from "./list-params.js";
import type { PaymentIntent, PaymentIntentStatus, StripeList, StripeSearchResult } from "./objects.js";
import {
  currency,
  metadata,
  optionalBoolean,
  optionalEnum,
  optionalInteger,
  optionalString,
  rejectUnknown,
  requiredInteger,
  requiredString,
} from "./params.js";
import { openDisputeLater } from "./disputes.js";
import { cardBehaviour } from "./payment-methods.js";
import { route, type Route } from "./routes.js";
import { matches, narrowingIndexKey, parseSearchQuery } from "./search.js";
import type { StripeStore } from "./store.js";

const maxAmount = 99_999_999;

// Accepted so real integrations run unchanged; the emulator models the ones that change an outcome.
const createParams = new Set([
  "amount", "currency", "customer", "payment_method", "confirm", "off_session", "metadata", "description",
  "capture_method", "confirmation_method", "payment_method_types", "automatic_payment_methods", "receipt_email",
  "statement_descriptor", "statement_descriptor_suffix", "setup_future_usage", "return_url", "error_on_requires_action",
  "expand", "mandate", "mandate_data", "on_behalf_of", "transfer_group", "transfer_data", "application_fee_amount",
  "payment_method_options", "shipping", "use_stripe_sdk",
]);
const confirmParams = new Set([
  "payment_method", "off_session", "return_url", "error_on_requires_action", "expand", "mandate", "mandate_data",
  "receipt_email", "setup_future_usage", "payment_method_options", "shipping", "use_stripe_sdk",
]);
const captureParams = new Set(["amount_to_capture", "expand", "statement_descriptor", "statement_descriptor_suffix"]);
const listParams = new Set([...listParamNames, "customer"]);
const searchParams = new Set(["query", "limit", "page", "expand"]);
const confirmable: readonly PaymentIntentStatus[] = ["requires_payment_method", "requires_confirmation", "requires_action"];

export const paymentIntentRoutes: Route[] = [
  route("POST", "/v1/payment_intents", { object: "payment_intent" }, ({ store, params }) => {
    rejectUnknown(params, createParams);
    const amount = requiredInteger(params, "amount", { min: 1, max: maxAmount });
    const intentCurrency = currency(params);
    const customer = optionalString(params, "customer");
    if (customer !== undefined) store.customer(customer);
    const paymentMethod = optionalString(params, "payment_method");
    if (paymentMethod !== undefined) cardBehaviour(paymentMethod, "payment_method");
    const confirm = optionalBoolean(params, "confirm") ?? false;
    const offSession = optionalBoolean(params, "off_session");
    if (offSession !== undefined && !confirm) {
      throw invalidRequest("off_session can only be set when confirm=true.", { param: "off_session" });
    }
    if (confirm && paymentMethod === undefined) throw missingPaymentMethod();
    const intentMetadata = metadata(params);
    const intent: PaymentIntent = {
      id: store.ids.next("pi"),
      object: "payment_intent",
      amount,
      amount_capturable: 0,
      amount_received: 0,
      capture_method: optionalEnum(params, "capture_method", ["automatic", "automatic_async", "manual"]) ?? "automatic_async",
      client_secret: "",
      confirmation_method: optionalEnum(params, "confirmation_method", ["automatic", "manual"]) ?? "automatic",
      created: store.nowSeconds(),
      currency: intentCurrency,
      customer: customer ?? null,
      description: optionalString(params, "description") ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: intentMetadata,
      next_action: null,
      payment_method: paymentMethod ?? null,
      payment_method_types: ["card"],
      receipt_email: optionalString(params, "receipt_email") ?? null,
      statement_descriptor: optionalString(params, "statement_descriptor") ?? null,
      status: paymentMethod === undefined ? "requires_payment_method" : "requires_confirmation",
      canceled_at: null,
      cancellation_reason: null,
      ...paymentIntentNulls,
      statement_descriptor_suffix: optionalString(params, "statement_descriptor_suffix") ?? null,
    };
    intent.client_secret = `${intent.id}_secret_${store.ids.secret()}`;
    const errorOnRequiresAction = optionalBoolean(params, "error_on_requires_action") ?? false;
    store.paymentIntents.add(intent);
    if (confirm && paymentMethod !== undefined) confirmIntent(store, intent, paymentMethod, (offSession ?? false) || errorOnRequiresAction);
    return intent;
  }),

  route("GET", "/v1/payment_intents/search", { object: "payment_intent", list: true }, ({ store, params, searchLagMs }) => {
    rejectUnknown(params, searchParams);
    const query = parseSearchQuery(requiredString(params, "query"));
    const limit = optionalInteger(params, "limit", { min: 1, max: 100 }) ?? 10;
    const page = optionalString(params, "page");
    const visibleUntil = Math.floor((store.clock.now() - searchLagMs) / 1000);
    const result = store.paymentIntents.scan(narrowingIndexKey(query), page === undefined ? Infinity : pageSeq(page), limit, (intent) =>
      intent.created <= visibleUntil && matches(query, intent),
    );
    const body: StripeSearchResult<PaymentIntent> = {
      object: "search_result",
      data: result.data,
      has_more: result.hasMore,
      next_page: result.hasMore && result.lastSeq !== undefined ? pageToken(result.lastSeq) : null,
      url: "/v1/payment_intents/search",
    };
    return body;
  }),

  route("GET", "/v1/payment_intents/:id", { object: "payment_intent" }, ({ store, pathParams: [id = ""] }) => store.paymentIntent(id)),

  route("GET", "/v1/payment_intents", { object: "payment_intent", list: true }, ({ store, params }) => {
    rejectUnknown(params, listParams);
    const customer = optionalString(params, "customer");
    const page = store.paymentIntents.list(listQuery(params), customer !== undefined ? { customer } : {});
    const body: StripeList<PaymentIntent> = { object: "list", data: page.data, has_more: page.hasMore, url: "/v1/payment_intents" };
    return body;
  }),

  route("POST", "/v1/payment_intents/:id/confirm", { object: "payment_intent" }, ({ store, params, pathParams: [id = ""] }) => {
    rejectUnknown(params, confirmParams);
    const intent = store.paymentIntent(id);
    const paymentMethod = optionalString(params, "payment_method") ?? intent.payment_method ?? undefined;
    if (paymentMethod === undefined) throw missingPaymentMethod();
    cardBehaviour(paymentMethod, "payment_method");
    const offSession = optionalBoolean(params, "off_session") ?? false;
    const errorOnRequiresAction = optionalBoolean(params, "error_on_requires_action") ?? false;
    if (!confirmable.includes(intent.status)) {
      throw unexpectedState(
        "payment_intent_unexpected_state",
        `You cannot confirm this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be confirmed: ${confirmable.join(", ")}.`,
      );
    }
    confirmIntent(store, intent, paymentMethod, offSession || errorOnRequiresAction);
    return intent;
  }),

  route("POST", "/v1/payment_intents/:id/capture", { object: "payment_intent" }, ({ store, params, pathParams: [id = ""] }) => {
    rejectUnknown(params, captureParams);
    const intent = store.paymentIntent(id);
    const amountToCapture = optionalInteger(params, "amount_to_capture", { min: 1 }) ?? intent.amount_capturable;
    if (intent.status !== "requires_capture") {
      throw unexpectedState(
        "payment_intent_unexpected_state",
        `This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
      );
    }
    if (amountToCapture > intent.amount_capturable) {
      throw invalidRequest(`amount_to_capture (${amountToCapture}) is greater than the amount capturable (${intent.amount_capturable}).`, {
        code: "amount_too_large",
        param: "amount_to_capture",
      });
    }
    const charge = store.charge(intent.latest_charge ?? "", "intent");
    charge.captured = true;
    charge.amount_captured = amountToCapture;
    const behaviour = cardBehaviour(charge.payment_method, "payment_method");
    if (behaviour.outcome === "succeed" && behaviour.dispute) openDisputeLater(store, charge, behaviour.dispute);
    intent.amount_received = amountToCapture;
    intent.amount_capturable = 0;
    intent.status = "succeeded";
    return intent;
  }),
];

/** Properties Stripe sends as null (or fixed) for an off-session card payment without Connect, review or saving. */
const paymentIntentNulls = {
  allowed_payment_method_types: null,
  application: null,
  application_fee_amount: null,
  automatic_payment_methods: null,
  customer_account: null,
  excluded_payment_method_types: null,
  managed_payments: null,
  on_behalf_of: null,
  payment_method_configuration_details: null,
  payment_method_options: { card: { installments: null, mandate_options: null, network: null, request_three_d_secure: "automatic" } },
  payment_record: null,
  processing: null,
  review: null,
  setup_future_usage: null,
  shipping: null,
  source: null,
  transfer_group: null,
} as const;

/** Charges the card; a decline leaves the PaymentIntent in `requires_payment_method` and answers 402. */
function confirmIntent(store: StripeStore, intent: PaymentIntent, paymentMethod: string, offSession: boolean): void {
  intent.payment_method = paymentMethod;
  const manual = intent.capture_method === "manual";
  const outcome = attemptCharge(store, {
    amount: intent.amount,
    currency: intent.currency,
    customer: intent.customer,
    paymentMethod,
    paymentMethodParam: "payment_method",
    capture: !manual,
    paymentIntent: intent.id,
    description: intent.description,
    metadata: { ...intent.metadata },
    offSession,
  });
  switch (outcome.kind) {
    case "charged":
      intent.latest_charge = outcome.charge.id;
      intent.last_payment_error = null;
      intent.next_action = null;
      if (manual) {
        intent.status = "requires_capture";
        intent.amount_capturable = intent.amount;
      } else {
        intent.status = "succeeded";
        intent.amount_received = intent.amount;
      }
      return;
    case "processing":
      intent.latest_charge = outcome.charge.id;
      intent.last_payment_error = null;
      intent.next_action = null;
      intent.status = "processing";
      return;
    case "requiresAction":
      intent.status = "requires_action";
      intent.next_action = { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect" } };
      return;
    case "declined":
      intent.latest_charge = outcome.charge.id;
      intent.last_payment_error = outcome.error;
      intent.payment_method = null;
      intent.next_action = null;
      intent.status = "requires_payment_method";
      throw cardDeclined(outcome.error, { payment_intent: intent });
  }
}

function missingPaymentMethod() {
  return invalidRequest(
    "You cannot confirm this PaymentIntent because it's missing a payment method. Update it with a payment_method, or pass one to confirm.",
    { code: "payment_intent_unexpected_state", param: "payment_method" },
  );
}

function pageToken(seq: number): string {
  return Buffer.from(`seq:${seq}`).toString("base64url");
}

function pageSeq(token: string): number {
  const match = /^seq:(\d+)$/.exec(Buffer.from(token, "base64url").toString());
  if (!match) throw invalidRequest(`Invalid page: ${token} is not a next_page value from a previous search.`, { param: "page" });
  return Number(match[1]);
}
