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
  /** Records whose charge was disputed: when any, the audit reads the account's disputes. */
  disputed: number;
  /** Records that carry a business key at `--key`: none of many says the key is looked for in the wrong place. */
  keyed: number;
}

const pageSize = 100;

export async function collectPayments(stripe: Stripe, spool: PaymentSpool, options: CollectOptions): Promise<CollectProgress> {
  const audited = new Set(options.flows);
  const needs = (flow: AuditFlow) => audited.has(flow) || audited.has("invoices");
  const created = { ...(options.since === undefined ? {} : { gte: options.since }), ...(options.until === undefined ? {} : { lt: options.until }) };
  const filter = { limit: pageSize, ...(Object.keys(created).length > 0 ? { created } : {}), ...(options.customer === undefined ? {} : { customer: options.customer }) };
  const progress: CollectProgress = { flow: options.flows[0] ?? "paymentintents", read: 0, kept: 0, disputed: 0, keyed: 0 };
  const keep = async (record: PaymentRecord | undefined) => {
    progress.read++;
    if (record) {
      progress.kept++;
      if (record.disputed) progress.disputed++;
      if (record.key !== undefined) progress.keyed++;
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

/**
 * The payments an invoice stands for that the listing did not read: one created at or after `--until` (the invoice
 * was created before it, the payment after). Read one by one, as support, so the invoice reads as paid by them, with
 * their refunds and disputes. A PaymentIntent speaks for its charge, so only the PaymentIntent is read.
 */
export async function readUncoveredPayments(stripe: Stripe, records: readonly PaymentRecord[], keyPath: readonly string[]): Promise<PaymentRecord[]> {
  if (!records.some((record) => record.covers !== undefined && record.covers.length > 0)) return [];
  const read = new Set(records.map((record) => record.id));
  const found: PaymentRecord[] = [];
  for (const record of records) {
    const missing = (record.covers ?? []).filter((id) => !read.has(id));
    if (missing.length === 0) continue;
    const intent = missing.find((id) => id.startsWith("pi_"));
    const support = intent
      ? fromPaymentIntent(await stripe.paymentIntents.retrieve(intent, { expand: ["latest_charge"] }), keyPath, true)
      : record.covers?.some((id) => id.startsWith("pi_") && read.has(id))
        ? undefined
        : fromCharge(await stripe.charges.retrieve(missing[0] as string), keyPath, true);
    if (support) found.push(support);
    for (const id of missing) read.add(id);
  }
  return found;
}
