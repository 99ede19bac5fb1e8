// The billing consumer: chargeguard's billing flow (validate the event, stable idempotency key, claim in the
// billing guard, charge through Stripe, record, then settle) with the numbers of this queue's tuning.
import {
  type BillingConsumerOptions,
  type startConsumer as ConsumerContract,
  startBillingConsumer,
} from "chargeguard/runtime";
import type { PaymentIntentRequest } from "chargeguard/runtime/flows";
import { tuneQueue } from "chargeguard/tuning";
import { type BillingEvent, billingEvent } from "./event.js";
import queueBudget from "./queue-budget.json" with { type: "json" };

/**
 * The queue's tuning: lock duration, lock renewal deadline, Stripe timeout and retries, computed from the queue's
 * latency budget in queue-budget.json. `chargeguard new consumer --stack S` wrote that budget from the stack config
 * that `chargeguard plan` and `pulumi up` deploy the queue with, so the numbers agree; when the stack's budget
 * changes, regenerate the file (its `regenerate` field says how) rather than editing numbers here.
 */
export const queueTuning = tuneQueue(queueBudget.budget);

/** Stripe calls one message makes: the PaymentIntent flow makes one (the runtime's default flow). */
export const stripeCallsPerMessage = 1;

export type ConsumerOptions = Omit<BillingConsumerOptions<BillingEvent, PaymentIntentRequest>, "tuning" | "event">;

/** Subscribes with `autoCompleteMessages: false` and settles each message only once its outcome is recorded. */
export function startUsageBillingConsumer(options: ConsumerOptions) {
  // The event (src/event.ts) says what identifies one billing: the record's identity and the Stripe key's fields.
  return startBillingConsumer<BillingEvent, PaymentIntentRequest>({ ...options, event: billingEvent, tuning: queueTuning });
}

/** chargeguard's consumer contract (the runtime's own `startConsumer` signature): the proving ground starts it so. */
export const startConsumer: typeof ConsumerContract = (context) => startUsageBillingConsumer(context);
