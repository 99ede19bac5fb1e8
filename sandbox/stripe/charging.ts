import { StripeFailure } from "./stripe-failures.js";
import type { Charge, Metadata, PaymentError, PaymentIntent } from "./objects.js";
import { bankDebitSettleSeconds, cardBehaviour } from "./payment-methods.js";
import type { StripeStore } from "./store.js";
import { cardPaymentMethod, chargePaymentMethodDetails, emptyBillingDetails } from "./card-details.js";
import { openDisputeLater } from "./disputes.js";

export interface ChargeAttempt {
  amount: number;
  currency: string;
  customer: string | null;
  paymentMethod: string;
  /** The request parameter that named the payment method, for error messages. */
  paymentMethodParam: string;
  capture: boolean;
  paymentIntent: string | null;
  description: string | null;
  metadata: Metadata;
  /** The customer is not present: a card that needs authentication fails instead of asking for it. */
  offSession: boolean;
}

export type ChargeOutcome =
  | { kind: "charged"; charge: Charge }
  | { kind: "declined"; charge: Charge; error: PaymentError }
  /** A bank debit: the charge is `pending` until `settlePendingCharge` finds its time has come. */
  | { kind: "processing"; charge: Charge }
  | { kind: "requiresAction" };

/**
 * The issuer's advice and the network's own codes: Stripe sends them (null when the bank gave none) on every outcome;
 * the test cards' banks give none, so the sandbox never makes one up.
 */
const noNetworkAdvice = { advice_code: null, network_advice_code: null, network_decline_code: null } as const;

/** Runs a test card and records the charge (succeeded or failed) it produces. */
export function attemptCharge(store: StripeStore, attempt: ChargeAttempt): ChargeOutcome {
  const behaviour = cardBehaviour(attempt.paymentMethod, attempt.paymentMethodParam);
  if (behaviour.outcome === "authenticate" && !attempt.offSession) return { kind: "requiresAction" };
  const decline =
    behaviour.outcome === "decline"
      ? { code: "card_declined", declineCode: behaviour.declineCode, message: behaviour.message }
      : behaviour.outcome === "authenticate"
        ? {
            code: "authentication_required",
            declineCode: "authentication_required",
            message: "Your card was declined. This transaction requires authentication.",
          }
        : undefined;
  const created = store.nowSeconds();
  const id = store.ids.next("ch");
  const charge: Charge = {
    id,
    object: "charge",
    amount: attempt.amount,
    amount_captured: !decline && attempt.capture ? attempt.amount : 0,
    amount_refunded: 0,
    balance_transaction: null,
    captured: !decline && attempt.capture,
    created,
    currency: attempt.currency,
    customer: attempt.customer,
    description: attempt.description,
    failure_code: decline ? decline.code : null,
    failure_message: decline ? decline.message : null,
    livemode: false,
    metadata: attempt.metadata,
    outcome: decline
      ? { ...noNetworkAdvice, network_status: "declined_by_network", reason: decline.declineCode, seller_message: "The bank did not return any further details with this decline.", type: "issuer_declined" }
      : { ...noNetworkAdvice, network_status: "approved_by_network", reason: null, seller_message: "Payment complete.", type: "authorized" },
    paid: !decline,
    payment_intent: attempt.paymentIntent,
    payment_method: attempt.paymentMethod,
    refunded: false,
    status: decline ? "failed" : "succeeded",
    ...chargeExtras(attempt, id, created, decline === undefined),
  };
  if (behaviour.outcome === "process") {
    Object.assign(charge, { status: "pending", paid: false, captured: false, amount_captured: 0, outcome: { ...charge.outcome, seller_message: "The payment is processing." } });
    store.charges.add(charge);
    return { kind: "processing", charge };
  }
  store.charges.add(charge);
  if (behaviour.outcome === "succeed" && behaviour.dispute && charge.captured) openDisputeLater(store, charge, behaviour.dispute);
  if (!decline) return { kind: "charged", charge };
  return {
    kind: "declined",
    charge,
    error: {
      type: "card_error",
      code: decline.code,
      decline_code: decline.declineCode,
      message: decline.message,
      charge: charge.id,
      payment_method: cardPaymentMethod(attempt.paymentMethod, attempt.customer, created),
    },
  };
}

/** The charge's fields that carry no behaviour here: what Stripe sends for a plain card charge. */
function chargeExtras(attempt: ChargeAttempt, id: string, created: number, authorized: boolean) {
  return {
    payment_method_details: chargePaymentMethodDetails(attempt.paymentMethod, created, authorized ? attempt.amount : null, id),
    billing_details: emptyBillingDetails(),
    receipt_url: `https://pay.stripe.com/receipts/payment/${id}`,
    disputed: false,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    calculated_statement_descriptor: "CHARGEGUARD SANDBOX",
    failure_balance_transaction: null,
    fraud_details: {},
    on_behalf_of: null,
    receipt_email: null,
    receipt_number: null,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    transfer_data: null,
    transfer_group: null,
  } as const;
}

/** A decline is an outcome of execution: Stripe saves the 402 for the key, so a retry replays it. */
export function cardDeclined(error: PaymentError, extra: { payment_intent?: PaymentIntent } = {}): StripeFailure {
  return new StripeFailure(
    402,
    {
      type: "card_error",
      message: error.message,
      code: error.code,
      ...(error.decline_code ? { decline_code: error.decline_code } : {}),
      ...(error.charge ? { charge: error.charge } : {}),
      ...extra,
    },
    true,
  );
}

/** A pending bank debit whose settling time has passed turns succeeded (true); anything else is left as it is. */
export function settlePendingCharge(store: StripeStore, charge: Charge): boolean {
  if (charge.status !== "pending" || store.nowSeconds() < charge.created + bankDebitSettleSeconds) return false;
  Object.assign(charge, { status: "succeeded", paid: true, captured: true, amount_captured: charge.amount, outcome: { ...charge.outcome, seller_message: "Payment complete." } });
  return true;
}
