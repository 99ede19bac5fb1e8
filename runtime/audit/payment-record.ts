// One payment as the audit keeps it: a few scalars, not the Stripe object, so a million of them can stream
// through a spool without a million objects in memory. A PaymentIntent and its charge are one payment (the
// PaymentIntent); a paid invoice and the charge or PaymentIntent that paid it are one payment (the invoice).
import type Stripe from "stripe";

export const auditFlows = ["paymentintents", "charges", "invoices"] as const;
export type AuditFlow = (typeof auditFlows)[number];

export interface PaymentRecord {
  flow: AuditFlow;
  /** pi_..., ch_... or in_... */
  id: string;
  customer: string;
  currency: string;
  /** Money taken, minor units. */
  amount: number;
  /** Refunded so far, minor units (an invoice's: filled in from its payments' charges). */
  refunded: number;
  created: number;
  /** The business key at `--key`, absent when the payment has none. */
  key?: string;
  /** What a refund names: the PaymentIntent or the charge that moved the money. */
  refundTarget: { payment_intent: string } | { charge: string };
  /** Ids of the charges / PaymentIntents this payment stands for (an invoice's payments). */
  covers?: string[];
  /**
   * An invoice paid by more than one payment: each payment's refund target and what it paid. A refund names one
   * payment and gives back at most what that payment took, so returning the invoice takes one refund per payment.
   */
  parts?: RefundPart[];
  /** Read only to complete another record (a charge behind an invoice), never audited itself. */
  supportOnly?: true;
  /** Its charge says a dispute was opened on it (`charge.disputed`): the audit reads the account's disputes. */
  disputed?: true;
}

export interface RefundPart {
  /** The charge or PaymentIntent that paid this part. */
  id: string;
  target: PaymentRecord["refundTarget"];
  /** Paid by it, minor units. */
  paid: number;
  /** Its ids whose refunds count against it (the charge and its PaymentIntent). */
  covers: string[];
}

/** A value at a dotted path (`metadata.usage_id`) of a Stripe object, when it is a non-empty string or a number. */
export function valueAt(object: unknown, path: readonly string[]): string | undefined {
  let current: unknown = object;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  if (typeof current === "number") return String(current);
  return typeof current === "string" && current !== "" ? current : undefined;
}

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : typeof value === "string" ? value : value.id;
}

/** A succeeded PaymentIntent (`latest_charge` expanded for its refunds); undefined when it took no money. */
export function fromPaymentIntent(intent: Stripe.PaymentIntent, keyPath: readonly string[], supportOnly: boolean): PaymentRecord | undefined {
  const customer = idOf(intent.customer as string | { id: string } | null);
  if (intent.status !== "succeeded" || intent.amount_received <= 0 || customer === undefined) return undefined;
  const charge = typeof intent.latest_charge === "object" && intent.latest_charge !== null ? intent.latest_charge : undefined;
  const key = valueAt(intent, keyPath);
  return {
    flow: "paymentintents",
    id: intent.id,
    customer,
    currency: intent.currency,
    amount: intent.amount_received,
    refunded: charge?.amount_refunded ?? 0,
    created: intent.created,
    ...(key === undefined ? {} : { key }),
    refundTarget: { payment_intent: intent.id },
    ...(supportOnly ? { supportOnly: true as const } : {}),
    ...(charge?.disputed ? { disputed: true as const } : {}),
  };
}

/**
 * A captured charge of the Charges API. A charge of a PaymentIntent is that PaymentIntent's (never a second payment);
 * `supportOnly` keeps one only to tell an invoice's refunds.
 */
export function fromCharge(charge: Stripe.Charge, keyPath: readonly string[], supportOnly: boolean): PaymentRecord | undefined {
  const customer = idOf(charge.customer as string | { id: string } | null);
  if (charge.payment_intent !== null || charge.status !== "succeeded" || !charge.captured || charge.amount_captured <= 0 || customer === undefined) return undefined;
  const key = valueAt(charge, keyPath);
  return {
    flow: "charges",
    id: charge.id,
    customer,
    currency: charge.currency,
    amount: charge.amount_captured,
    refunded: charge.amount_refunded,
    created: charge.created,
    ...(key === undefined ? {} : { key }),
    refundTarget: { charge: charge.id },
    ...(supportOnly ? { supportOnly: true as const } : {}),
    ...(charge.disputed ? { disputed: true as const } : {}),
  };
}

/** A paid invoice (`payments` expanded): its paid payment is what a refund names. */
export function fromInvoice(invoice: Stripe.Invoice, keyPath: readonly string[], supportOnly: boolean): PaymentRecord | undefined {
  const customer = idOf(invoice.customer as string | { id: string } | null);
  if (invoice.status !== "paid" || invoice.amount_paid <= 0 || customer === undefined || invoice.id === undefined) return undefined;
  const paid = (invoice.payments?.data ?? []).filter((payment) => payment.status === "paid");
  const covers = paid.flatMap((payment) => [idOf(payment.payment.charge), idOf(payment.payment.payment_intent)].filter((id): id is string => id !== undefined));
  const parts = paid.flatMap((payment): RefundPart[] => {
    const intent = idOf(payment.payment.payment_intent);
    const charge = idOf(payment.payment.charge);
    const target = intent !== undefined ? { payment_intent: intent } : charge !== undefined ? { charge } : undefined;
    if (target === undefined) return [];
    const ids = [intent, charge].filter((id): id is string => id !== undefined);
    return [{ id: ids[0] as string, target, paid: payment.amount_paid ?? payment.amount_requested, covers: ids }];
  });
  const first = parts[0];
  if (first === undefined) return undefined;
  const key = valueAt(invoice, keyPath);
  return {
    flow: "invoices",
    id: invoice.id,
    customer,
    currency: invoice.currency,
    amount: invoice.amount_paid,
    refunded: 0,
    created: invoice.created,
    ...(key === undefined ? {} : { key }),
    refundTarget: first.target,
    covers,
    ...(parts.length > 1 ? { parts } : {}),
    ...(supportOnly ? { supportOnly: true as const } : {}),
  };
}
