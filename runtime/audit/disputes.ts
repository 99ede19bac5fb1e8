// What the cardholders' banks did to the account's payments. A lost dispute returned the money (it is not taken any
// more: its twin is no longer a duplicate); an open or won one leaves a person to decide, so a group holding one is
// never refunded automatically (a chargeback cannot be refunded at all: Stripe answers `charge_disputed`).
import type Stripe from "stripe";
import type { PaymentRecord } from "./payment-record.js";

export interface DisputeSummary {
  id: string;
  /** Stripe's status: warning_needs_response, warning_under_review, warning_closed, needs_response, under_review, won, lost. */
  status: string;
  /** Disputed amount, minor units. */
  amount: number;
}

/** lost: the money went back to the cardholder; open: undecided; won: the bank let you keep it; ended: an inquiry that closed. */
export type DisputeStanding = "lost" | "open" | "won" | "ended";

export function standingOf(status: string): DisputeStanding {
  if (status === "lost") return "lost";
  if (status === "won") return "won";
  if (status === "warning_closed" || status === "prevented") return "ended";
  return "open";
}

/** The disputes of the payments read, by charge and PaymentIntent id (the newest when a payment has several). */
export class DisputeIndex {
  static readonly empty = new DisputeIndex([]);
  readonly #byPayment = new Map<string, DisputeSummary>();

  constructor(disputes: readonly Stripe.Dispute[]) {
    for (const dispute of disputes) {
      const summary = { id: dispute.id, status: dispute.status, amount: dispute.amount };
      for (const paymentId of [idOf(dispute.charge), idOf(dispute.payment_intent)]) {
        if (paymentId !== undefined && !this.#byPayment.has(paymentId)) this.#byPayment.set(paymentId, summary);
      }
    }
  }

  get size(): number {
    return this.#byPayment.size;
  }

  /** A payment's dispute: its own id's, or (an invoice) that of a payment it stands for. */
  of(record: Pick<PaymentRecord, "id" | "covers">): DisputeSummary | undefined {
    const own = this.#byPayment.get(record.id);
    if (own) return own;
    for (const id of record.covers ?? []) {
      const covered = this.#byPayment.get(id);
      if (covered) return covered;
    }
    return undefined;
  }
}

function idOf(value: string | { id: string } | null): string | undefined {
  return value === null ? undefined : typeof value === "string" ? value : value.id;
}

/** Every dispute opened since `since` (a dispute is younger than its payment): one page per 100 disputes. */
export async function readDisputes(stripe: Stripe, since: number | undefined): Promise<DisputeIndex> {
  const disputes: Stripe.Dispute[] = [];
  for await (const dispute of stripe.disputes.list({ limit: 100, ...(since === undefined ? {} : { created: { gte: since } }) })) disputes.push(dispute);
  return new DisputeIndex(disputes);
}

/** What the operator can do about a duplicate group that a dispute holds back from automatic refunds. */
export function disputeAdvice(disputed: ReadonlyArray<{ payment: string; kept: boolean; dispute: DisputeSummary }>): string {
  return disputed
    .map(({ payment, kept, dispute }) => {
      const standing = standingOf(dispute.status);
      const which = `${dispute.id} (${dispute.status}) on ${kept ? "the kept payment" : "duplicate"} ${payment}`;
      if (standing === "won") {
        return `${which}: the bank let you keep it; if the customer was still charged twice, refund one of the group by hand`;
      }
      if (dispute.status.startsWith("warning_")) {
        return `${which}: an inquiry; refunding the duplicate by hand closes it`;
      }
      return kept
        ? `${which}: answer it (evidence) or accept it; once it is lost the next audit keeps the other payment, and nothing is refunded twice`
        : `${which}: a chargeback cannot be refunded; accept it (the dispute returns the money) or answer it if it is not a duplicate`;
    })
    .join("; ");
}
