// Which of one customer's payments charged them twice for one thing. Certain: two payments with the same business
// key, currency and amount. Likely: payments without a key, same currency and amount, within the window of the
// first (the same amount next month is a new bill). Money not taken never counts; a duplicate already refunded in
// full is resolved, reported apart. The earliest payment still holding money is the one kept. A lost dispute returned
// its amount (not taken any more); a group that an open or won dispute touches is held for a person, never refunded.
import { DisputeIndex, disputeAdvice, standingOf, type DisputeSummary } from "./disputes.js";
import type { AuditFlow, PaymentRecord } from "./payment-record.js";

export type Confidence = "certain" | "likely";

export interface DuplicatePayment {
  id: string;
  flow: AuditFlow;
  /** Still held, minor units: what a refund gives back. */
  remaining: number;
  refundTarget: PaymentRecord["refundTarget"];
  /** An invoice paid by several payments: what each still holds; its refund is one per part (refund-duplicates.ts). */
  parts?: Array<{ id: string; target: PaymentRecord["refundTarget"]; remaining: number }>;
}

export interface DuplicateGroup {
  confidence: Confidence;
  customer: string;
  currency: string;
  amount: number;
  keep: string;
  duplicates: DuplicatePayment[];
  key?: string;
}

export interface ResolvedDuplicate {
  confidence: Confidence;
  customer: string;
  currency: string;
  amount: number;
  keep: string;
  refunded: string;
  key?: string;
  /** The lost dispute that returned the money (absent: a refund did). */
  dispute?: string;
}

/** A duplicate group an open or won dispute touches: reported with what to do, never refunded automatically. */
export interface DisputedGroup extends DuplicateGroup {
  disputes: Array<{ payment: string; dispute: DisputeSummary }>;
  advice: string;
}

export interface CustomerFindings {
  groups: DuplicateGroup[];
  resolved: ResolvedDuplicate[];
  disputed: DisputedGroup[];
  /** Payments examined: one per money movement (an invoice's charge is the invoice's). */
  examined: number;
}

/** `windowSeconds`: how far after the first an unkeyed payment of the same amount is a likely duplicate. */
export function detectDuplicates(records: readonly PaymentRecord[], windowSeconds: number, disputes: DisputeIndex = DisputeIndex.empty): CustomerFindings {
  const payments = auditedPayments(records, disputes);
  const findings: CustomerFindings = { groups: [], resolved: [], disputed: [], examined: payments.length };
  const keyed = new Map<string, Audited[]>();
  const unkeyed = new Map<string, Audited[]>();
  for (const payment of payments) {
    const same = `${payment.currency}\u0000${payment.amount}`;
    const target = payment.key === undefined ? unkeyed : keyed;
    const bucket = payment.key === undefined ? same : `${same}\u0000${payment.key}`;
    const list = target.get(bucket);
    if (list) list.push(payment);
    else target.set(bucket, [payment]);
  }
  for (const list of keyed.values()) addGroup(findings, "certain", byTime(list));
  for (const list of unkeyed.values()) {
    for (const cluster of windows(byTime(list), windowSeconds)) addGroup(findings, "likely", cluster);
  }
  return findings;
}

/**
 * The payments to audit: one per money movement. Drops the charges / PaymentIntents an invoice stands for (adding
 * their refunds to the invoice, and to each of its parts when several payments paid it) and the records read only for
 * that.
 */
function auditedPayments(records: readonly PaymentRecord[], disputes: DisputeIndex): Audited[] {
  const byId = new Map(records.map((record) => [record.id, record]));
  const covered = new Set<string>();
  const partsHolding = new Map<PaymentRecord, NonNullable<DuplicatePayment["parts"]>>();
  const result: Audited[] = [];
  for (const record of records) {
    if (!record.covers) continue;
    let refunded = record.refunded;
    for (const id of record.covers) {
      covered.add(id);
      refunded += byId.get(id)?.refunded ?? 0;
    }
    record.refunded = Math.min(record.amount, refunded);
    if (record.parts) {
      const refundedOf = (ids: readonly string[]) => ids.reduce((sum, id) => sum + (byId.get(id)?.refunded ?? 0), 0);
      partsHolding.set(record, record.parts.map((part) => ({ id: part.id, target: part.target, remaining: Math.max(0, part.paid - refundedOf(part.covers)) })));
    }
  }
  for (const record of records) {
    if (record.supportOnly || covered.has(record.id)) continue;
    // A charge that says it was disputed but whose dispute was not found is held as an open one: never refunded.
    const dispute = (disputes.size === 0 ? undefined : disputes.of(record)) ?? (record.disputed ? unknownDispute : undefined);
    // Money a lost dispute sent back to the cardholder is returned, as a refund's is.
    const returned = dispute && standingOf(dispute.status) === "lost" ? Math.min(record.amount, record.refunded + dispute.amount) : record.refunded;
    const parts = partsHolding.get(record);
    result.push(Object.assign(record, { returned, ...(dispute ? { dispute } : {}), ...(parts ? { partsHolding: parts } : {}) }));
  }
  return result;
}

const unknownDispute: DisputeSummary = { id: "(not found)", status: "unknown", amount: 0 };

/** An audited payment: what has come back to the customer (refunds and lost disputes) and its dispute. */
type Audited = PaymentRecord & { returned: number; dispute?: DisputeSummary; partsHolding?: DuplicatePayment["parts"] };

function byTime(list: Audited[]): Audited[] {
  return list.sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Runs of payments within `windowSeconds` of the run's first one. */
function windows(sorted: Audited[], windowSeconds: number): Audited[][] {
  const runs: Audited[][] = [];
  let current: Audited[] = [];
  for (const payment of sorted) {
    const first = current[0];
    if (first !== undefined && payment.created - first.created > windowSeconds) {
      runs.push(current);
      current = [];
    }
    current.push(payment);
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function addGroup(findings: CustomerFindings, confidence: Confidence, sorted: Audited[]): void {
  if (sorted.length < 2) return;
  const holding = sorted.filter((payment) => payment.returned < payment.amount);
  const keep = holding[0] ?? sorted[0]!;
  const { customer, currency, amount, key } = keep;
  const common = { confidence, customer, currency, amount, keep: keep.id, ...(key === undefined ? {} : { key }) };
  for (const payment of sorted) {
    if (payment === keep || payment.returned < payment.amount) continue;
    const lost = payment.dispute && standingOf(payment.dispute.status) === "lost" ? { dispute: payment.dispute.id } : {};
    findings.resolved.push({ ...common, refunded: payment.id, ...lost });
  }
  const duplicates = holding.filter((payment) => payment !== keep);
  if (duplicates.length === 0) return;
  const group: DuplicateGroup = {
    ...common,
    duplicates: duplicates.map((payment) => ({
      id: payment.id,
      flow: payment.flow,
      remaining: payment.amount - payment.returned,
      refundTarget: payment.refundTarget,
      ...(payment.partsHolding ? { parts: payment.partsHolding } : {}),
    })),
  };
  const disputes = holding.flatMap((payment) => {
    const standing = payment.dispute ? standingOf(payment.dispute.status) : undefined;
    return payment.dispute && (standing === "open" || standing === "won") ? [{ payment: payment.id, dispute: payment.dispute }] : [];
  });
  if (disputes.length === 0) {
    findings.groups.push(group);
    return;
  }
  const advice = disputeAdvice(disputes.map((entry) => ({ ...entry, kept: entry.payment === keep.id })));
  findings.disputed.push({ ...group, disputes, advice });
}
