// Whether a consumer, run with its own Stripe client and concurrency, fits the queue it reads: the lock (renewed for
// the consumer's deadline) covers a delivery and a wait for a Stripe slot. The runtime refuses to start on these
// problems and a generated consumer's `--print-settings` lists them: one check, so both say the same. PURE.
import { holdProblems, type ConsumerConcurrency } from "./message-hold.js";
import { coverageProblems, deliveryBudgetMs, type LatencyBudget } from "./queue-tuning.js";

export interface QueueLock {
  /** The queue's LockDuration in ms. */
  lockDurationMs: number;
  /** How long the consumer renews a lock (the receiver's maxAutoLockRenewalDurationInMs); 0: never. */
  maxAutoLockRenewalDurationInMs: number;
}

/**
 * One sentence per problem (empty when the consumer fits). `budget` is the queue's budget with the Stripe client the
 * consumer really runs; the concurrency the queue was tuned for (budget.concurrency) is ignored in favour of the
 * consumer's own.
 */
export function consumerFitProblems(budget: LatencyBudget, concurrency: ConsumerConcurrency, lock: QueueLock): string[] {
  const { concurrency: _tunedFor, ...queueBudget } = budget;
  return [...coverageProblems(queueBudget, lock), ...holdProblems(deliveryBudgetMs(queueBudget), concurrency, lock)];
}
