import type { SandboxClock } from "../clock.js";
import { Collection } from "./collection.js";
import { resourceMissing } from "./stripe-failures.js";
import { IdGenerator } from "./ids.js";
import type { Dispute } from "./dispute-objects.js";
import type { Invoice, InvoiceItem, InvoicePayment } from "./invoice-objects.js";
import type { BillingMeter, BillingMeterEvent, Charge, Customer, PaymentIntent, Refund } from "./objects.js";
import { paymentIntentIndexKeys } from "./search.js";

/** Everything the emulated account holds, with the indexes its endpoints read. */
export class StripeStore {
  readonly ids = new IdGenerator();
  readonly customers = new Map<string, Customer>();
  readonly paymentIntents = new Collection<PaymentIntent>(paymentIntentIndexKeys);
  readonly charges = new Collection<Charge>((charge) => (charge.payment_intent ? [paymentIntentChargesKey(charge.payment_intent)] : []));
  readonly refunds = new Collection<Refund>((refund) => [refundsOfChargeKey(refund.charge)]);
  readonly disputes = new Collection<Dispute>((dispute) => [disputesOfChargeKey(dispute.charge)]);
  readonly invoices = new Collection<Invoice>();
  /** Invoice items have no `created`: their `date` orders them. */
  readonly invoiceItems = new Collection<InvoiceItem>((item) => (item.invoice ? [invoiceItemsKey(item.invoice)] : []), (item) => item.date);
  /** Every invoice's payments (attempts included), indexed by invoice: what `expand[]=payments` shows. */
  readonly invoicePayments = new Collection<InvoicePayment>((payment) => [invoicePaymentsKey(payment.invoice)]);
  readonly meters = new Map<string, BillingMeter>();
  /** Every meter event accepted, oldest first. */
  readonly meterEvents: BillingMeterEvent[] = [];
  /** Meter event identifiers and when (unix seconds) they were accepted: Stripe's dedupe window. */
  readonly meterIdentifiers = new Map<string, number>();

  /** What Stripe does shortly after a request (a dispute opening, evidence judged): run by `runDue()`. */
  readonly #later: Array<{ atMs: number; run: () => void }> = [];
  /** How long after a charge on a dispute test card its dispute opens (and evidence is judged). */
  disputeDelayMs = 0;

  constructor(readonly clock: SandboxClock) {}

  later(delayMs: number, run: () => void): void {
    this.#later.push({ atMs: this.clock.now() + delayMs, run });
  }

  /** Runs what has come due, in the order it was scheduled; every request and ledger read calls it first. */
  runDue(): void {
    if (this.#later.length === 0) return;
    const now = this.clock.now();
    const due = this.#later.filter((action) => action.atMs <= now);
    if (due.length === 0) return;
    this.#later.splice(0, this.#later.length, ...this.#later.filter((action) => action.atMs > now));
    for (const action of due) action.run();
  }

  /** Unix seconds on the emulator's clock, like every `created` field. */
  nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  customer(id: string, param = "customer"): Customer {
    const customer = this.customers.get(id);
    if (!customer) throw resourceMissing("customer", id, param);
    return customer;
  }

  paymentIntent(id: string, param = "intent"): PaymentIntent {
    const intent = this.paymentIntents.get(id);
    if (!intent) throw resourceMissing("payment_intent", id, param);
    return intent;
  }

  invoice(id: string, param = "invoice"): Invoice {
    const invoice = this.invoices.get(id);
    if (!invoice) throw resourceMissing("invoice", id, param);
    return invoice;
  }

  charge(id: string, param = "charge"): Charge {
    const charge = this.charges.get(id);
    if (!charge) throw resourceMissing("charge", id, param);
    return charge;
  }
}

export function paymentIntentChargesKey(paymentIntent: string): string {
  return `payment_intent\u0000${paymentIntent}`;
}

export function invoiceItemsKey(invoice: string): string {
  return `invoice\u0000${invoice}`;
}

export function refundsOfChargeKey(charge: string): string {
  return `charge\u0000${charge}`;
}

export function disputesOfChargeKey(charge: string): string {
  return `disputes\u0000${charge}`;
}

export function invoicePaymentsKey(invoice: string): string {
  return `invoice_payments\u0000${invoice}`;
}
