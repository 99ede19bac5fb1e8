// The billing consumer: chargeguard's billing flow (validate the event, stable idempotency key, claim in the
// billing guard, charge through Stripe, record, then settle) with the numbers of this queue's tuning.
import {
  type BillingConsumerOptions,
  type startConsumer as ConsumerContract,
  startBillingConsumer,
} from "chargeguard/runtime";
import { tuneQueue } from "chargeguard/tuning";

/**
 * The queue's latency budget. `chargeguard plan` and the BillingQueue Pulumi component compute the queue's
 * LockDuration from the same budget, so the lock, this consumer's lock renewal deadline and its Stripe timeout
 * and retries agree. Change it in both places together.
 */
export const queueTuning = tuneQueue({ stripe: { timeoutMs: 20_000, maxNetworkRetries: 1 } });

export type ConsumerOptions = Omit<BillingConsumerOptions, "tuning">;

/** Subscribes with `autoCompleteMessages: false` and settles each message only once its outcome is recorded. */
export function startUsageBillingConsumer(options: ConsumerOptions) {
  return startBillingConsumer({ ...options, tuning: queueTuning });
}

/** chargeguard's consumer contract (the runtime's own `startConsumer` signature): the proving ground starts it so. */
export const startConsumer: typeof ConsumerContract = (context) => startUsageBillingConsumer(context);
