// Stripe's Dispute object (API 2026-10-28) and the test cards that open one. A dispute is the cardholder's bank taking
// the money back: Stripe's testing docs give `pm_card_createDispute` (fraudulent), `...ProductNotReceived` and
// `...Inquiry` (a pre-dispute inquiry, `warning_needs_response`); the charge succeeds and the dispute opens shortly after.
import type { Charge, Metadata } from "./objects.js";

export type DisputeStatus =
  | "warning_needs_response"
  | "warning_under_review"
  | "warning_closed"
  | "needs_response"
  | "under_review"
  | "won"
  | "lost";

/** What a dispute test card opens. */
export interface DisputeKind {
  reason: "fraudulent" | "product_not_received";
  /** An inquiry (a retrieval request): no money moves unless it escalates. */
  inquiry: boolean;
  /** Visa's reason code for the reason. */
  networkReasonCode: string;
}

export const fraudulentDispute: DisputeKind = { reason: "fraudulent", inquiry: false, networkReasonCode: "10.4" };
export const productNotReceivedDispute: DisputeKind = { reason: "product_not_received", inquiry: false, networkReasonCode: "13.1" };
export const disputeInquiry: DisputeKind = { reason: "fraudulent", inquiry: true, networkReasonCode: "10.4" };

type Nulls<K extends string> = Record<K, null>;
type EvidenceField =
  | "access_activity_log" | "billing_address" | "cancellation_policy" | "cancellation_policy_disclosure" | "cancellation_rebuttal"
  | "customer_communication" | "customer_email_address" | "customer_name" | "customer_purchase_ip" | "customer_signature"
  | "duplicate_charge_documentation" | "duplicate_charge_explanation" | "duplicate_charge_id" | "product_description" | "receipt"
  | "refund_policy" | "refund_policy_disclosure" | "refund_refusal_explanation" | "service_date" | "service_documentation"
  | "shipping_address" | "shipping_carrier" | "shipping_date" | "shipping_documentation" | "shipping_tracking_number"
  | "uncategorized_file" | "uncategorized_text";

export const evidenceFields: readonly EvidenceField[] = [
  "access_activity_log", "billing_address", "cancellation_policy", "cancellation_policy_disclosure", "cancellation_rebuttal",
  "customer_communication", "customer_email_address", "customer_name", "customer_purchase_ip", "customer_signature",
  "duplicate_charge_documentation", "duplicate_charge_explanation", "duplicate_charge_id", "product_description", "receipt",
  "refund_policy", "refund_policy_disclosure", "refund_refusal_explanation", "service_date", "service_documentation",
  "shipping_address", "shipping_carrier", "shipping_date", "shipping_documentation", "shipping_tracking_number",
  "uncategorized_file", "uncategorized_text",
];

export interface Dispute {
  id: string;
  object: "dispute";
  amount: number;
  /** Stripe lists the balance transactions of the withdrawal and any reinstatement; the sandbox keeps no balance. */
  balance_transactions: never[];
  charge: string;
  created: number;
  currency: string;
  enhanced_eligibility_types: never[];
  evidence: Record<EvidenceField, string | null> & { enhanced_evidence: Record<string, never> };
  evidence_details: {
    due_by: number | null;
    enhanced_eligibility: Record<string, never>;
    has_evidence: boolean;
    past_due: boolean;
    submission_count: number;
    submission_method: "manual" | "not_submitted";
  };
  intended_submission_method: null;
  is_charge_refundable: boolean;
  livemode: false;
  metadata: Metadata;
  network_reason_code: string;
  payment_intent: string | null;
  payment_method_details: { card: { brand: string; case_type: "chargeback" | "inquiry"; network: string; network_reason_code: string }; type: "card" };
  reason: string;
  status: DisputeStatus;
}

/** Stripe gives the merchant 7 days (inquiries) to about 3 weeks to answer; the sandbox says 7 days for both. */
const evidenceWindowSeconds = 7 * 24 * 3600;

export function newDispute(id: string, charge: Charge, kind: DisputeKind, created: number): Dispute {
  const brand = charge.payment_method_details.card.brand;
  return {
    id,
    object: "dispute",
    amount: charge.amount_captured,
    balance_transactions: [],
    charge: charge.id,
    created,
    currency: charge.currency,
    enhanced_eligibility_types: [],
    evidence: { ...(Object.fromEntries(evidenceFields.map((field) => [field, null])) as Nulls<EvidenceField>), enhanced_evidence: {} },
    evidence_details: { due_by: created + evidenceWindowSeconds, enhanced_eligibility: {}, has_evidence: false, past_due: false, submission_count: 0, submission_method: "not_submitted" },
    intended_submission_method: null,
    // An inquiry can still be settled by refunding the charge; a chargeback has already taken the money.
    is_charge_refundable: kind.inquiry,
    livemode: false,
    metadata: {},
    network_reason_code: kind.networkReasonCode,
    payment_intent: charge.payment_intent,
    payment_method_details: { card: { brand, case_type: kind.inquiry ? "inquiry" : "chargeback", network: brand, network_reason_code: kind.networkReasonCode }, type: "card" },
    reason: kind.reason,
    status: kind.inquiry ? "warning_needs_response" : "needs_response",
  };
}

/** A dispute that has been decided (or an inquiry that ended): nothing more to answer. */
export function disputeClosed(dispute: Dispute): boolean {
  return dispute.status === "won" || dispute.status === "lost" || dispute.status === "warning_closed";
}
