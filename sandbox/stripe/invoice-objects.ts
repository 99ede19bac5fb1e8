// Invoices as API version 2026-10-28 returns them: no `paid`, `charge` or `lines.data[].invoice_item` any more;
// an invoice's payments are `InvoicePayment`s (the `payments` field, sent only when expanded) and a line names its
// invoice item under `parent.invoice_item_details`. Nullable properties the SDK's type requires are sent as null.
import type { Metadata, StripeList } from "./objects.js";

export type InvoiceStatus = "draft" | "open" | "paid" | "uncollectible" | "void";

interface Period {
  start: number;
  end: number;
}

interface Pricing {
  type: "price_details";
  unit_amount_decimal: string | null;
}

export interface InvoiceItem {
  id: string;
  object: "invoiceitem";
  amount: number;
  currency: string;
  customer: string;
  customer_account: null;
  /** When the item was created (Stripe's field name for invoice items; they have no `created`). */
  date: number;
  description: string | null;
  discountable: boolean;
  discounts: string[];
  /** null: pending, swept into the customer's next invoice that includes pending items. */
  invoice: string | null;
  livemode: false;
  metadata: Metadata;
  parent: null;
  period: Period;
  pricing: Pricing;
  proration: boolean;
  quantity: number;
  quantity_decimal: string;
  tax_rates: never[];
  test_clock: null;
}

export interface InvoiceLine {
  id: string;
  object: "line_item";
  amount: number;
  currency: string;
  description: string | null;
  discount_amounts: never[];
  discountable: boolean;
  discounts: string[];
  invoice: string;
  livemode: false;
  metadata: Metadata;
  /** The invoice item behind the line. */
  parent: {
    type: "invoice_item_details";
    invoice_item_details: { invoice_item: string; proration: boolean; proration_details: { credited_items: null }; subscription: null };
    subscription_item_details: null;
  };
  period: Period;
  pretax_credit_amounts: never[];
  pricing: Pricing;
  quantity: number;
  quantity_decimal: string;
  subscription: null;
  subtotal: number;
  taxes: never[];
}

/** One payment of an invoice: which charge (or PaymentIntent) paid it. */
export interface InvoicePayment {
  id: string;
  object: "invoice_payment";
  amount_paid: number | null;
  amount_requested: number;
  created: number;
  currency: string;
  invoice: string;
  is_default: boolean;
  livemode: false;
  payment: { type: "charge"; charge: string };
  status: "paid" | "open" | "canceled";
  status_transitions: { canceled_at: number | null; paid_at: number | null };
}

export interface Invoice {
  id: string;
  object: "invoice";
  amount_due: number;
  amount_overpaid: number;
  amount_paid: number;
  amount_remaining: number;
  amount_shipping: number;
  attempt_count: number;
  attempted: boolean;
  auto_advance: boolean;
  automatic_tax: { disabled_reason: null; enabled: false; liability: null; provider: null; status: null };
  automatically_finalizes_at: number | null;
  billing_reason: "manual";
  collection_method: "charge_automatically" | "send_invoice";
  created: number;
  currency: string;
  customer: string;
  customer_email: string | null;
  customer_name: string | null;
  default_payment_method: string | null;
  description: string | null;
  due_date: number | null;
  effective_at: number | null;
  ending_balance: number | null;
  issuer: { type: "self" };
  lines: StripeList<InvoiceLine>;
  livemode: false;
  metadata: Metadata;
  number: string | null;
  parent: null;
  payment_settings: { default_mandate: null; payment_method_options: null; payment_method_types: null };
  period_end: number;
  period_start: number;
  starting_balance: number;
  status: InvoiceStatus;
  status_transitions: { finalized_at: number | null; marked_uncollectible_at: null; paid_at: number | null; voided_at: null };
  subtotal: number;
  subtotal_excluding_tax: number;
  total: number;
  total_excluding_tax: number;
  // Sent as null (or empty) by Stripe for an invoice without Connect, tax, discounts, shipping or custom fields.
  account_country: null;
  account_name: null;
  account_tax_ids: null;
  application: null;
  custom_fields: null;
  customer_account: null;
  customer_address: null;
  customer_phone: null;
  customer_shipping: null;
  customer_tax_exempt: null;
  default_source: null;
  default_tax_rates: never[];
  discounts: string[];
  footer: null;
  from_invoice: null;
  last_finalization_error: null;
  latest_revision: null;
  next_payment_attempt: null;
  on_behalf_of: null;
  post_payment_credit_notes_amount: number;
  pre_payment_credit_notes_amount: number;
  receipt_number: null;
  rendering: null;
  shipping_cost: null;
  shipping_details: null;
  statement_descriptor: null;
  test_clock: null;
  total_discount_amounts: never[];
  total_pretax_credit_amounts: never[];
  total_taxes: never[];
  webhooks_delivered_at: null;
}
