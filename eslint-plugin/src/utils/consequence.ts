/**
 * What a repeat of a Stripe call does, worded for a reviewer: a refund refunds again, a payout pays out again, a meter
 * event counts the usage again, and a call that moves no money says so. One table for ESLint's messages and the
 * scan's, keyed by the resource as any SDK spells it (`refunds`, `Refund`, `payment_intents`, `paymentIntents()`).
 */
const CONSEQUENCES: Readonly<Record<string, string>> = {
  charge: "charges again",
  paymentintent: "charges again",
  refund: "refunds again",
  creditnote: "credits the customer again",
  payout: "pays out again",
  transfer: "transfers the money again",
  subscription: "subscribes the customer again and bills its first invoice again",
  invoice: "bills again",
  invoiceitem: "bills again",
  topup: "tops up the balance again",
  meterevent: "counts the usage again",
  metereventstream: "counts the usage again",
};

/** Methods whose repeat has a consequence of its own on their resource. */
const METHOD_CONSEQUENCES: Readonly<Record<string, string>> = {
  createreversal: "reverses the transfer again",
  addlines: "bills again",
  incrementauthorization: "charges again",
};

/** Stripe refuses or ignores a repeat of these (a second cancel, pay, capture): no money moves twice. */
export const MOVES_NO_MONEY = "repeats the request, which moves no money";

/** `Refund`, `refunds`, `payment_intents`, `billing.meterEvents` -> `refund`, `refund`, `paymentintent`, `meterevent`. */
export function resourceStem(resource: string): string {
  const last = resource.split(".").pop() ?? resource;
  // Every resource's plural is its singular and an "s" (charges, invoices, payment_intents).
  return last.replace(/\(\)$/, "").replace(/_/g, "").toLowerCase().replace(/s$/, "");
}

/** The consequence of repeating `<resource>.<method>()`; `moneyMoving: false` for a call that moves no money. */
export function consequenceOf(resource: string, method: string, moneyMoving = true): string {
  if (!moneyMoving) return MOVES_NO_MONEY;
  return METHOD_CONSEQUENCES[method.toLowerCase().replace(/_/g, "")] ?? CONSEQUENCES[resourceStem(resource)] ?? "charges again";
}
