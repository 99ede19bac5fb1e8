// Builders for the invoice objects: the fields with behaviour come from the route, the rest are what Stripe sends
// for a one-off invoice without tax, discounts, Connect or subscriptions.
import type { Invoice, InvoiceItem, InvoiceLine, InvoicePayment } from "./invoice-objects.js";
import type { Metadata } from "./objects.js";

export function newInvoiceItem(fields: {
  id: string;
  amount: number;
  currency: string;
  customer: string;
  now: number;
  description: string | null;
  invoice: string | null;
  metadata: Metadata;
}): InvoiceItem {
  return {
    id: fields.id,
    object: "invoiceitem",
    amount: fields.amount,
    currency: fields.currency,
    customer: fields.customer,
    customer_account: null,
    date: fields.now,
    description: fields.description,
    discountable: true,
    discounts: [],
    invoice: fields.invoice,
    livemode: false,
    metadata: fields.metadata,
    parent: null,
    period: { start: fields.now, end: fields.now },
    pricing: { type: "price_details", unit_amount_decimal: String(fields.amount) },
    proration: false,
    quantity: 1,
    quantity_decimal: "1",
    tax_rates: [],
    test_clock: null,
  };
}

/** The invoice's line for an item: API 2026-10-28 names the item under `parent`, not `invoice_item`. */
export function lineOf(item: InvoiceItem, invoice: string): InvoiceLine {
  return {
    id: `il_${item.id.slice(3)}`,
    object: "line_item",
    amount: item.amount,
    currency: item.currency,
    description: item.description,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice,
    livemode: false,
    metadata: item.metadata,
    parent: {
      type: "invoice_item_details",
      invoice_item_details: { invoice_item: item.id, proration: false, proration_details: { credited_items: null }, subscription: null },
      subscription_item_details: null,
    },
    period: item.period,
    pretax_credit_amounts: [],
    pricing: item.pricing,
    quantity: 1,
    quantity_decimal: "1",
    subscription: null,
    subtotal: item.amount,
    taxes: [],
  };
}

export function newInvoice(fields: {
  id: string;
  autoAdvance: boolean;
  collectionMethod: Invoice["collection_method"];
  now: number;
  currency: string;
  customer: string;
  customerEmail: string | null;
  customerName: string | null;
  defaultPaymentMethod: string | null;
  description: string | null;
  metadata: Metadata;
}): Invoice {
  return {
    id: fields.id,
    object: "invoice",
    amount_due: 0,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: 0,
    amount_shipping: 0,
    attempt_count: 0,
    attempted: false,
    auto_advance: fields.autoAdvance,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: null,
    billing_reason: "manual",
    collection_method: fields.collectionMethod,
    created: fields.now,
    currency: fields.currency,
    customer: fields.customer,
    customer_email: fields.customerEmail,
    customer_name: fields.customerName,
    default_payment_method: fields.defaultPaymentMethod,
    description: fields.description,
    due_date: null,
    effective_at: null,
    ending_balance: null,
    issuer: { type: "self" },
    lines: { object: "list", data: [], has_more: false, url: `/v1/invoices/${fields.id}/lines` },
    livemode: false,
    metadata: fields.metadata,
    number: null,
    parent: null,
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: fields.now,
    period_start: fields.now,
    starting_balance: 0,
    status: "draft",
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal: 0,
    subtotal_excluding_tax: 0,
    total: 0,
    total_excluding_tax: 0,
    ...invoiceFieldsNotEmulated(),
  };
}

/**
 * What Stripe sends, null or empty, for the features the emulator leaves out (tax, discounts, credit notes,
 * shipping, Connect, test clocks). Fresh for each invoice: its arrays are the invoice's own.
 */
function invoiceFieldsNotEmulated() {
  return {
    account_country: null,
    account_name: null,
    account_tax_ids: null,
    application: null,
    custom_fields: null,
    customer_account: null,
    customer_address: null,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: null,
    default_source: null,
    default_tax_rates: [],
    discounts: [],
    footer: null,
    from_invoice: null,
    last_finalization_error: null,
    latest_revision: null,
    next_payment_attempt: null,
    on_behalf_of: null,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    statement_descriptor: null,
    test_clock: null,
    total_discount_amounts: [],
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: null,
  } satisfies Partial<Invoice>;
}

/** One pay attempt: the charge that paid it (or failed to). */
export function invoicePayment(fields: { id: string; invoice: Invoice; charge: string; paid: boolean; now: number }): InvoicePayment {
  return {
    id: fields.id,
    object: "invoice_payment",
    amount_paid: fields.paid ? fields.invoice.amount_remaining : null,
    amount_requested: fields.invoice.amount_remaining,
    created: fields.now,
    currency: fields.invoice.currency,
    invoice: fields.invoice.id,
    is_default: fields.paid,
    livemode: false,
    payment: { type: "charge", charge: fields.charge },
    status: fields.paid ? "paid" : "open",
    status_transitions: { canceled_at: null, paid_at: fields.paid ? fields.now : null },
  };
}
