// Reads the account's payments into the spool, one page at a time (auto-pagination, `created` bounds, 100 a page).
// Invoices are always read, with their payments (as support when not audited): the charge or PaymentIntent that paid
// an invoice is the invoice's payment, never one of its own. When invoices are audited the charges and PaymentIntents
// are read too (as support when not audited), since an invoice's refunds live on the payment that paid it.
import type Stripe from "stripe";
import { fromCharge, fromInvoice, fromPaymentIntent, type AuditFlow, type PaymentRecord } from "./payment-record.js";
import type { PaymentSpool } from "./spool.js";

export interface CollectOptions {
  flows: readonly AuditFlow[];
  keyPath: readonly string[];
  /** Unix seconds, inclusive. */
  since?: number;
  /** Unix seconds, exclusive. */
  until?: number;
  customer?: string;
  onProgress?: (progress: CollectProgress) => void;
}

export interface CollectProgress {
  flow: AuditFlow;
  /** Stripe objects read so far, every flow. */
  read: number;
  /** Records kept (payments that took money). */
  kept: number;
}

const pageSize = 100;

export async function collectPayments(stripe: Stripe, spool: PaymentSpool, options: CollectOptions): Promise<CollectProgress> {
  const audited = new Set(options.flows);
  const needs = (flow: AuditFlow) => audited.has(flow) || audited.has("invoices");
  const created = { ...(options.since === undefined ? {} : { gte: options.since }), ...(options.until === undefined ? {} : { lt: options.until }) };
  const filter = { limit: pageSize, ...(Object.keys(created).length > 0 ? { created } : {}), ...(options.customer === undefined ? {} : { customer: options.customer }) };
  const progress: CollectProgress = { flow: options.flows[0] ?? "paymentintents", read: 0, kept: 0 };
  const keep = async (record: PaymentRecord | undefined) => {
    progress.read++;
    if (record) {
      progress.kept++;
      await spool.add(record);
    }
    if (progress.read % pageSize === 0) options.onProgress?.(progress);
  };
  if (needs("paymentintents")) {
    progress.flow = "paymentintents";
    const support = !audited.has("paymentintents");
    for await (const intent of stripe.paymentIntents.list({ ...filter, expand: ["data.latest_charge"] })) {
      await keep(fromPaymentIntent(intent, options.keyPath, support));
    }
  }
  if (needs("charges")) {
    progress.flow = "charges";
    const support = !audited.has("charges");
    for await (const charge of stripe.charges.list(filter)) await keep(fromCharge(charge, options.keyPath, support));
  }
  progress.flow = "invoices";
  const invoicesSupport = !audited.has("invoices");
  for await (const invoice of stripe.invoices.list({ ...filter, status: "paid", expand: ["data.payments"] })) {
    await keep(fromInvoice(invoice, options.keyPath, invoicesSupport));
  }
  options.onProgress?.(progress);
  return progress;
}
