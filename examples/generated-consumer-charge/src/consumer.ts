// The billing consumer: chargeguard's guard around this project's own Stripe calls (src/flow.ts) for this project's
// own events (src/event.ts): validate the event, derive its stable key, claim the record (and the spend) in the
// guard, run the flow, record the outcome, then settle, with the numbers of this queue's tuning.
import {
  type BillingConsumerOptions,
  type startConsumer as ConsumerContract,
  startBillingConsumer,
} from "chargeguard/runtime";
import { tuneQueue } from "chargeguard/tuning";
import { type BillingEvent, billingEvent } from "./event.js";
import { flow, type FlowRequest } from "./flow.js";
import queueBudget from "./queue-budget.json" with { type: "json" };

/**
 * The queue's tuning: lock duration, lock renewal deadline, Stripe timeout and retries, computed from the queue's
 * latency budget in queue-budget.json. `chargeguard new consumer --stack S` wrote that budget from the stack config
 * that `chargeguard plan` and `pulumi up` deploy the queue with, so the numbers agree; when the stack's budget
 * changes, regenerate the file (its `regenerate` field says how) rather than editing numbers here.
 */
export const queueTuning = tuneQueue(queueBudget.budget);

/** Stripe calls one message makes at most (this project's flow): each gets a whole delivery budget. */
export const stripeCallsPerMessage = flow.calls;

export type ConsumerOptions = Omit<BillingConsumerOptions<BillingEvent, FlowRequest>, "tuning" | "flow" | "event">;

/** Subscribes with `autoCompleteMessages: false` and settles each message only once its outcome is recorded. */
export function startUsageBillingConsumer(options: ConsumerOptions) {
  return startBillingConsumer<BillingEvent, FlowRequest>({ ...options, flow, event: billingEvent, tuning: queueTuning });
}

/** chargeguard's consumer contract (the runtime's own `startConsumer` signature): the proving ground starts it so. */
export const startConsumer: typeof ConsumerContract = (context) => startUsageBillingConsumer(context);
