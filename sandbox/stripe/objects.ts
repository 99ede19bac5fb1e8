// The subset of Stripe's API objects the emulator serves, field names and types as API version 2026-10-28 (the
// pinned SDK's) returns them: every property the SDK's type requires is present, nullable ones as null
// (test/sandbox/stripe/conformance checks it). Invoices live in invoice-objects.ts.
import type { BillingDetails, CardPaymentMethod, ChargePaymentMethodDetails } from "./card-details.js";

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
  invoice_settings: { custom_fields: null; default_payment_method: string | null; footer: null; rendering_options: null };
  balance: number;
  shipping: null;
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
  /** The whole PaymentMethod, as Stripe sends it (not a stub). */
  payment_method: CardPaymentMethod;
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
  // Sent as null (or empty) by Stripe for an off-session card payment without Connect, Radar review or saving.
  allowed_payment_method_types: null;
  application: null;
  application_fee_amount: null;
  automatic_payment_methods: null;
  customer_account: null;
  excluded_payment_method_types: null;
  managed_payments: null;
  on_behalf_of: null;
  payment_method_configuration_details: null;
  payment_method_options: { card: { installments: null; mandate_options: null; network: null; request_three_d_secure: "automatic" } };
  payment_record: null;
  processing: null;
  review: null;
  setup_future_usage: null;
  shipping: null;
  source: null;
  statement_descriptor_suffix: string | null;
  transfer_group: null;
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
  outcome: {
    advice_code: null;
    network_advice_code: null;
    network_decline_code: null;
    network_status: string;
    reason: string | null;
    seller_message: string;
    type: "authorized" | "issuer_declined";
  };
  paid: boolean;
  payment_intent: string | null;
  payment_method: string;
  refunded: boolean;
  status: "succeeded" | "pending" | "failed";
  payment_method_details: ChargePaymentMethodDetails;
  billing_details: BillingDetails;
  receipt_url: string;
  disputed: boolean;
  // Sent as null (or empty) by Stripe for a card charge without Connect, Radar review, shipping or a receipt.
  application: null;
  application_fee: null;
  application_fee_amount: null;
  calculated_statement_descriptor: string;
  failure_balance_transaction: null;
  fraud_details: Record<string, never>;
  on_behalf_of: null;
  receipt_email: null;
  receipt_number: null;
  review: null;
  shipping: null;
  source: null;
  source_transfer: null;
  statement_descriptor: null;
  statement_descriptor_suffix: null;
  transfer_data: null;
  transfer_group: null;
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
  balance_transaction: null;
  customer: string | null;
  customer_account: null;
  payment_method: string;
  receipt_number: null;
  source_transfer_reversal: null;
  transfer_reversal: null;
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
