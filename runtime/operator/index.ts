// chargeguard/runtime/operator: the operators' tools behind the chargeguard CLI: dead-letter inspection and
// resubmission, and the reconciler that finishes billings a crash left pending.
export {
  peekDeadLetters,
  resubmitDeadLetters,
  resubmission,
  resubmitMessageId,
  resubmitIdReason,
  permanentDeadLetterReasons,
  type RefusedDeadLetter,
  type DeadLetterFilter,
  type DeadLetterOptions,
  type DeadLetterSummary,
  type ResubmitOptions,
  type ResubmitReport,
  type ResubmittedMessage,
} from "./dlq.js";
export {
  reconcile,
  builtInFlows,
  type ReconcileAction,
  type ReconcileOptions,
  type ReconcileOutcome,
  type ReconcileReport,
} from "./reconcile.js";
// One way to Stripe for the consumer and the reconciler: each period's vault key, under its cap.
export { stripeAccess, type StripeAccess, type StripeAccessOptions } from "../stripe/stripe-access.js";
export type { ExpectedPeriodTotal } from "../stripe/period-client.js";
// What a Service Bus UnauthorizedAccess means: a wrong key, or missing rights (the SDK gives both one code).
export { serviceBusHost, serviceBusRefusal, wrongKeyMessage, type ServiceBusRefusal } from "../servicebus/servicebus-refusal.js";
export { serviceBusErrorIn } from "../sdk/service-bus-error.js";
