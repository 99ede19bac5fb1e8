// The subset of Stripe's API objects the emulator serves, field names and types as the API returns them.

export type Metadata = Record<string, string>;

export interface Customer {
  id: string;
  object: "customer";
  created: number;
  livemode: false;
  email: string | null;
  name: string | null;
  description: string | null;
  metadata: Metadata;
  /** A card source (`tok_visa`) that `charges.create({ customer })` uses when no source is given. */
  default_source: string | null;
  invoice_settings: { default_payment_method: string | null };
}

export type PaymentIntentStatus =
  | "requires_payment_method"
  | "requires_confirmation"
  | "requires_action"
  | "processing"
  | "requires_capture"
  | "canceled"
  | "succeeded";

export interface PaymentError {
  type: "card_error";
  code: string;
  decline_code?: string;
  message: string;
  charge?: string;
  payment_method: { id: string; object: "payment_method"; type: "card" };
}

export interface PaymentIntent {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_capturable: number;
  amount_received: number;
  capture_method: "automatic" | "automatic_async" | "manual";
  client_secret: string;
  confirmation_method: "automatic" | "manual";
  created: number;
  currency: string;
  customer: string | null;
  description: string | null;
  last_payment_error: PaymentError | null;
  latest_charge: string | null;
  livemode: false;
  metadata: Metadata;
  next_action: { type: "use_stripe_sdk"; use_stripe_sdk: { type: "three_d_secure_redirect" } } | null;
  payment_method: string | null;
  payment_method_types: string[];
  receipt_email: string | null;
  statement_descriptor: string | null;
  status: PaymentIntentStatus;
  canceled_at: number | null;
  cancellation_reason: string | null;
}

export interface Charge {
  id: string;
  object: "charge";
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  balance_transaction: string | null;
  captured: boolean;
  created: number;
  currency: string;
  customer: string | null;
  description: string | null;
  failure_code: string | null;
  failure_message: string | null;
  livemode: false;
  metadata: Metadata;
  outcome: { network_status: string; reason: string | null; seller_message: string; type: "authorized" | "issuer_declined" };
  paid: boolean;
  payment_intent: string | null;
  payment_method: string;
  refunded: boolean;
  status: "succeeded" | "pending" | "failed";
}

export interface Refund {
  id: string;
  object: "refund";
  amount: number;
  charge: string;
  created: number;
  currency: string;
  metadata: Metadata;
  payment_intent: string | null;
  reason: string | null;
  status: "succeeded";
}

export type InvoiceStatus = "draft" | "open" | "paid" | "uncollectible" | "void";

export interface InvoiceItem {
  id: string;
  object: "invoiceitem";
  amount: number;
  currency: string;
  customer: string;
  /** When the item was created (Stripe's field name for invoice items). */
  date: number;
  /** The same instant, for the sandbox's lists (ordered by `created`). */
  created: number;
  description: string | null;
  /** null: pending, swept into the customer's next invoice that includes pending items. */
  invoice: string | null;
  livemode: false;
  metadata: Metadata;
}

export interface InvoiceLine {
  id: string;
  object: "line_item";
  amount: number;
  currency: string;
  description: string | null;
  invoice: string;
  /** The invoice item behind the line. */
  invoice_item: string | null;
  livemode: false;
  metadata: Metadata;
}

export interface Invoice {
  id: string;
  object: "invoice";
  amount_due: number;
  amount_paid: number;
  amount_remaining: number;
  attempt_count: number;
  attempted: boolean;
  auto_advance: boolean;
  charge: string | null;
  collection_method: "charge_automatically" | "send_invoice";
  created: number;
  currency: string;
  customer: string;
  default_payment_method: string | null;
  description: string | null;
  lines: StripeList<InvoiceLine>;
  livemode: false;
  metadata: Metadata;
  paid: boolean;
  status: InvoiceStatus;
  status_transitions: { finalized_at: number | null; paid_at: number | null };
  subtotal: number;
  total: number;
}

export interface BillingMeter {
  id: string;
  object: "billing.meter";
  created: number;
  customer_mapping: { event_payload_key: string; type: "by_id" };
  default_aggregation: { formula: "sum" | "count" | "last" };
  display_name: string;
  event_name: string;
  event_time_window: "day" | "hour" | null;
  livemode: false;
  status: "active" | "inactive";
  status_transitions: { deactivated_at: number | null };
  updated: number;
  value_settings: { event_payload_key: string };
}

export interface BillingMeterEvent {
  object: "billing.meter_event";
  created: number;
  event_name: string;
  identifier: string;
  livemode: false;
  payload: Record<string, string>;
  timestamp: number;
}

export interface BillingMeterEventSummary {
  id: string;
  object: "billing.meter_event_summary";
  aggregated_value: number;
  end_time: number;
  livemode: false;
  meter: string;
  start_time: number;
}

export interface StripeList<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  url: string;
}

export interface StripeSearchResult<T> {
  object: "search_result";
  data: T[];
  has_more: boolean;
  next_page: string | null;
  url: string;
}
