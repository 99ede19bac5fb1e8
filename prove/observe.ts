// Reads what a run left behind into the metrics' terms: card attempts from the Stripe ledger, the dead-letter queue,
// and the declines the contender recorded in its own billing_records table (if it keeps one).
import type { PGlite } from "@electric-sql/pglite";
import type { StripeLedger, QueueSnapshot } from "../sandbox/index.js";
import type { CustomerDirectory } from "./customers.js";
import type { DeadLetter, StripeAttempt } from "./metrics.js";
import type { Workload } from "./workload.js";

/** Every charge is one card attempt (Stripe records declined ones too). */
export function cardAttempts(ledger: StripeLedger, directory: CustomerDirectory): StripeAttempt[] {
  return ledger.charges().map((charge) => ({
    paymentIntentId: charge.payment_intent ?? charge.id,
    customer: (charge.customer === null ? undefined : directory.toWorkload(charge.customer)) ?? charge.customer ?? "(none)",
    amountCents: charge.amount,
    outcome: charge.status === "succeeded" ? "succeeded" : charge.failure_code === null ? "other" : "declined",
  }));
}

export function deadLetters(snapshot: QueueSnapshot, directory: CustomerDirectory): DeadLetter[] {
  return snapshot.deadLettered.map((message) => ({
    messageId: message.messageId,
    body: directory.bodyToWorkload(message.body),
    reason: message.deadLetterReason ?? "",
  }));
}

/** Event ids whose billing_records row says declined (the guard's `state`, or a seed table's `status`). */
export async function recordedDeclines(database: PGlite, workload: Workload): Promise<Set<string>> {
  let rows: Record<string, unknown>[];
  try {
    rows = (await database.query<Record<string, unknown>>("SELECT * FROM billing_records")).rows;
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return new Set();
    throw error;
  }
  const declined = new Set(rows.filter((row) => row.state === "declined" || row.status === "declined").map((row) => `${String(row.customer_id)}|${String(row.billing_period)}`));
  return new Set(workload.events.filter((event) => event.usage && declined.has(`${event.usage.customerId}|${event.usage.billingPeriod}`)).map((event) => event.id));
}
