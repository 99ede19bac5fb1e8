import { disputeInquiry, fraudulentDispute, productNotReceivedDispute, type DisputeKind } from "./dispute-objects.js";
import { invalidRequest } from "./stripe-failures.js";

/** What a test card does when charged: Stripe's documented test ids, so code written against the sandbox runs in test mode. */
export type CardBehaviour =
  /** `dispute`: the charge succeeds, then the cardholder's bank disputes it (Stripe's dispute test cards). */
  | { outcome: "succeed"; dispute?: DisputeKind }
  | { outcome: "decline"; declineCode: string; message: string }
  | { outcome: "authenticate" }
  /** A bank debit: accepted, then `processing` until the money arrives (`bankDebitSettleSeconds` on the store's clock). */
  | { outcome: "process" };

/**
 * Live, an ACH debit takes business days to settle; the sandbox settles it one emulated minute after it was made, so a
 * test sees the payment processing and then, by advancing the clock, paid.
 */
export const bankDebitSettleSeconds = 60;

const declined = { outcome: "decline", declineCode: "generic_decline", message: "Your card was declined." } as const;
const insufficientFunds = { outcome: "decline", declineCode: "insufficient_funds", message: "Your card has insufficient funds." } as const;

const testCards = new Map<string, CardBehaviour>([
  ["pm_card_visa", { outcome: "succeed" }],
  ["pm_card_mastercard", { outcome: "succeed" }],
  ["pm_card_chargeDeclined", declined],
  ["pm_card_chargeDeclinedInsufficientFunds", insufficientFunds],
  ["pm_card_authenticationRequired", { outcome: "authenticate" }],
  // Stripe's documented ACH Direct Debit test method (account 000123456789): the payment succeeds, after processing.
  ["pm_usBankAccount_success", { outcome: "process" }],
  ["pm_card_createDispute", { outcome: "succeed", dispute: fraudulentDispute }],
  ["pm_card_createDisputeProductNotReceived", { outcome: "succeed", dispute: productNotReceivedDispute }],
  ["pm_card_createDisputeInquiry", { outcome: "succeed", dispute: disputeInquiry }],
  ["tok_visa", { outcome: "succeed" }],
  ["tok_mastercard", { outcome: "succeed" }],
  ["tok_chargeDeclined", declined],
  ["tok_chargeDeclinedInsufficientFunds", insufficientFunds],
  ["tok_createDispute", { outcome: "succeed", dispute: fraudulentDispute }],
  ["tok_createDisputeProductNotReceived", { outcome: "succeed", dispute: productNotReceivedDispute }],
  ["tok_createDisputeInquiry", { outcome: "succeed", dispute: disputeInquiry }],
]);

export const testPaymentMethodIds: readonly string[] = [...testCards.keys()];

export function cardBehaviour(paymentMethod: string, param: string): CardBehaviour {
  const behaviour = testCards.get(paymentMethod);
  if (!behaviour) {
    const kind = paymentMethod.startsWith("tok_") ? "token" : "PaymentMethod";
    throw invalidRequest(`No such ${kind}: '${paymentMethod}'. The sandbox knows ${testPaymentMethodIds.join(", ")}.`, {
      code: "resource_missing",
      param,
    });
  }
  return behaviour;
}
