// Refunds duplicates in full, safely: the idempotency key is derived from the duplicate's id (a crash between the
// refund and its answer, retried within Stripe's 24 h, gets the same refund back), the parameters never change
// between runs (no amount: Stripe refunds what remains), and a duplicate already refunded in full is resolved on the
// next run's read, so running again refunds nothing twice and an interrupted run finishes the rest.
import type Stripe from "stripe";
import { isStripeKeyRefusal } from "../stripe/stripe-error.js";
import type { DuplicateGroup, DuplicatePayment } from "./detect.js";

export interface RefundSelection {
  /** Refund the likely groups' duplicates named here too (certain ones are always refunded). */
  likelyIds?: ReadonlySet<string>;
}

export interface PlannedRefund {
  duplicate: string;
  keep: string;
  customer: string;
  currency: string;
  amount: number;
  confidence: DuplicateGroup["confidence"];
  target: DuplicatePayment["refundTarget"];
  /** The payment refunded, when the duplicate is an invoice several payments paid (one refund each). */
  part?: string;
}

export interface RefundOutcome extends PlannedRefund {
  refund?: string;
  error?: string;
}

/** Every duplicate of a certain group, and of a likely one when its id is named. */
export function planRefunds(groups: readonly DuplicateGroup[], selection: RefundSelection = {}): PlannedRefund[] {
  const planned: PlannedRefund[] = [];
  for (const group of groups) {
    for (const duplicate of group.duplicates) {
      if (group.confidence === "likely" && !selection.likelyIds?.has(duplicate.id)) continue;
      const common = { duplicate: duplicate.id, keep: group.keep, customer: group.customer, currency: group.currency, confidence: group.confidence };
      // An invoice several payments paid: one refund per payment still holding money (one refund gives back at most
      // what its payment took; through the first alone, the rest stayed taken while the report said all was returned).
      if (duplicate.parts) {
        for (const part of duplicate.parts) if (part.remaining > 0) planned.push({ ...common, amount: part.remaining, target: part.target, part: part.id });
        continue;
      }
      planned.push({ ...common, amount: duplicate.remaining, target: duplicate.refundTarget });
    }
  }
  return planned;
}

export function refundIdempotencyKey(duplicate: string, part?: string): string {
  return part === undefined ? `chargeguard-audit-refund:${duplicate}` : `chargeguard-audit-refund:${duplicate}:${part}`;
}

/** Issues the refunds one after another; a refusal is recorded against its duplicate and the rest go on. */
export async function issueRefunds(stripe: Stripe, planned: readonly PlannedRefund[], onRefund?: (outcome: RefundOutcome) => void): Promise<RefundOutcome[]> {
  const outcomes: RefundOutcome[] = [];
  for (const plan of planned) {
    let outcome: RefundOutcome;
    try {
      const refund = await stripe.refunds.create(
        { ...plan.target, reason: "duplicate", metadata: { chargeguard_audit: "duplicate", duplicate_payment: plan.duplicate, kept_payment: plan.keep } },
        { idempotencyKey: refundIdempotencyKey(plan.duplicate, plan.part) },
      );
      outcome = { ...plan, refund: refund.id };
    } catch (error) {
      // Access errors end the run (exit 2); anything else is this refund's failure, reported beside it.
      if (isStripeKeyRefusal(error)) throw error;
      outcome = { ...plan, error: error instanceof Error ? error.message : String(error) };
    }
    outcomes.push(outcome);
    onRefund?.(outcome);
  }
  return outcomes;
}
