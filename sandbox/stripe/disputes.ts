// Disputes: opened shortly after a charge on one of Stripe's dispute test cards, listed (all, or by `charge` /
// `payment_intent`), retrieved, answered with evidence (`submit`) and closed (accepted: `lost`). Stripe's testing docs:
// evidence `uncategorized_text` "winning_evidence" wins the dispute, "losing_evidence" loses it, shortly after.
import { disputeClosed, evidenceFields, newDispute, type Dispute, type DisputeKind, type DisputeStatus } from "./dispute-objects.js";
import { invalidRequest, resourceMissing, StripeFailure } from "./stripe-failures.js";
import { chargeScopedList } from "./list-params.js";
import type { Charge } from "./objects.js";
import { metadata, optionalBoolean, optionalHash, rejectUnknown } from "./params.js";
import { route, type Route } from "./routes.js";
import { disputesOfChargeKey, type StripeStore } from "./store.js";

const updateParams = new Set(["evidence", "metadata", "submit", "expand"]);

/** The dispute a dispute test card brings, `store.disputeDelayMs` after the charge (Stripe: "shortly after"). */
export function openDisputeLater(store: StripeStore, charge: Charge, kind: DisputeKind): void {
  store.later(store.disputeDelayMs, () => {
    charge.disputed = true;
    store.disputes.add(newDispute(store.ids.next("dp"), charge, kind, store.nowSeconds()));
  });
}

/** Whether a refund of the charge must be refused: a chargeback (not an inquiry) has already taken its money. */
export function chargebackOf(store: StripeStore, chargeId: string): Dispute | undefined {
  return store.disputes.indexed(disputesOfChargeKey(chargeId)).find((dispute) => !dispute.is_charge_refundable);
}

/** A refund that returns all of a charge's money ends an inquiry on it, as Stripe closes it. */
export function closeInquiriesOf(store: StripeStore, chargeId: string): void {
  for (const dispute of store.disputes.indexed(disputesOfChargeKey(chargeId))) {
    if (dispute.status.startsWith("warning_") && !disputeClosed(dispute)) dispute.status = "warning_closed";
  }
}

function dispute(store: StripeStore, id: string): Dispute {
  const found = store.disputes.get(id);
  if (!found) throw resourceMissing("dispute", id, "id");
  return found;
}

function alreadyClosed(found: Dispute): StripeFailure {
  return new StripeFailure(400, { type: "invalid_request_error", message: `This dispute is already closed (status ${found.status}).` }, true);
}

/** Evidence submitted: under review, then decided by the test phrases (anything else stays under review). */
function submitEvidence(store: StripeStore, found: Dispute): void {
  found.status = found.status.startsWith("warning_") ? "warning_under_review" : "under_review";
  found.evidence_details = { ...found.evidence_details, has_evidence: true, submission_count: found.evidence_details.submission_count + 1, submission_method: "manual" };
  const text = found.evidence.uncategorized_text;
  const inquiry = found.status === "warning_under_review";
  const verdict: DisputeStatus | undefined = text === "winning_evidence" ? (inquiry ? "warning_closed" : "won") : text === "losing_evidence" ? "lost" : undefined;
  if (verdict) store.later(store.disputeDelayMs, () => (found.status = verdict));
}

function update(store: StripeStore, found: Dispute, params: Parameters<Route["handle"]>[0]["params"]): Dispute {
  rejectUnknown(params, updateParams);
  if (disputeClosed(found)) throw alreadyClosed(found);
  const evidence = optionalHash(params, "evidence") ?? {};
  for (const [field, value] of Object.entries(evidence)) {
    if (!(evidenceFields as readonly string[]).includes(field)) {
      throw invalidRequest(`Received unknown parameter: evidence[${field}]`, { code: "parameter_unknown", param: `evidence[${field}]` });
    }
    if (typeof value !== "string") throw invalidRequest(`Invalid string: evidence[${field}]`, { param: `evidence[${field}]` });
    (found.evidence as Record<string, string | null>)[field] = value === "" ? null : value;
  }
  Object.assign(found.metadata, metadata(params));
  // Stripe submits the evidence at once unless `submit: false` (then it is staged).
  if (optionalBoolean(params, "submit") ?? true) submitEvidence(store, found);
  return found;
}

export const disputeRoutes: Route[] = [
  route("GET", "/v1/disputes/:id", { object: "dispute" }, ({ store, pathParams: [id = ""] }) => dispute(store, id)),

  route("POST", "/v1/disputes/:id/close", { object: "dispute" }, ({ store, params, pathParams: [id = ""] }) => {
    rejectUnknown(params, new Set(["expand"]));
    const found = dispute(store, id);
    if (disputeClosed(found)) throw alreadyClosed(found);
    // Accepting the dispute: the cardholder keeps the money the bank took back.
    found.status = "lost";
    return found;
  }),

  route("POST", "/v1/disputes/:id", { object: "dispute" }, ({ store, params, pathParams: [id = ""] }) => update(store, dispute(store, id), params)),

  // Newest first, by `charge` or `payment_intent`, and `created`.
  route("GET", "/v1/disputes", { object: "dispute", list: true }, ({ store, params }) => chargeScopedList(store.disputes, params, disputesOfChargeKey, "/v1/disputes")),
];
