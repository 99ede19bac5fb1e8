// The seeds' broken consumers, for the proving ground: each one, under the fault that triggers it, must show the
// failure its seed describes. `file` is relative to this directory (the same in the sources and in dist/examples).
import type { StartConsumer } from "../../runtime/index.js";

export type ExpectedFailure = "duplicateCharges" | "lostBillings" | "repeatedDeclines" | "deadLettered";

export interface BrokenExample {
  name: string;
  file: string;
  /**
   * The Stripe flow it bills through, when not PaymentIntents: the proving ground sends it that flow's event bodies
   * (the generated consumer's schema for the flow) and counts that flow's objects at Stripe.
   */
  flow?: "charge" | "invoice" | "meter-event";
  load: () => Promise<{ startConsumer: StartConsumer }>;
  /** The seed's failure mode, in one sentence. */
  failureMode: string;
  expectedFailure: ExpectedFailure;
  /**
   * The proving ground's fault that makes the failure show (a name of prove/faults/faults.ts, checked there: examples are a
   * leaf and import nothing of the proving ground); "none": the workload alone (duplicates, declines).
   */
  triggeringFault: string;
  /** How that fault leads to the failure. */
  howItFails: string;
}

export const brokenExamples: readonly BrokenExample[] = [
  {
    name: "no-idempotency-key",
    file: "no-idempotency-key.js",
    load: () => import("./no-idempotency-key.js"),
    failureMode: "PaymentIntent created without an idempotency key; a redelivered message charges again",
    expectedFailure: "duplicateCharges",
    triggeringFault: "kill-after-stripe",
    howItFails: "the killed replica's charge exists; the redelivery charges again (also: renew-busy, slow-stripe)",
  },
  {
    name: "message-id-key",
    file: "message-id-key.js",
    load: () => import("./message-id-key.js"),
    failureMode: "idempotency key from messageId; a resubmitted or re-sent event has a new messageId",
    expectedFailure: "duplicateCharges",
    triggeringFault: "none",
    howItFails: "producer duplicates carry a new messageId, so a new key (also: dlq-resubmit with new messageIds)",
  },
  {
    name: "random-uuid-key",
    file: "random-uuid-key.js",
    load: () => import("./random-uuid-key.js"),
    failureMode: "a new randomUUID() key per delivery with auto-complete, which abandons on a throw",
    expectedFailure: "duplicateCharges",
    triggeringFault: "kill-after-stripe",
    howItFails: "the redelivery draws a new UUID (also: kill-after-record, and commit-drop once the SDK's retries are spent)",
  },
  {
    name: "abandon-on-timeout",
    file: "abandon-on-timeout.js",
    load: () => import("./abandon-on-timeout.js"),
    failureMode: "abandonMessage() on a Stripe timeout: immediate redelivery re-charges (no key)",
    expectedFailure: "duplicateCharges",
    triggeringFault: "commit-drop",
    howItFails:
      "StripeConnectionError after the commit, abandon, immediate redelivery, a second charge; the SDK replays its own " +
      "retries, so the drop must outlast them (or slow-stripe with a client timeout below the latency)",
  },
  {
    name: "abandon-on-decline",
    file: "abandon-on-decline.js",
    load: () => import("./abandon-on-decline.js"),
    failureMode: "abandonMessage() on a card decline: the card is retried on every delivery",
    expectedFailure: "repeatedDeclines",
    triggeringFault: "none",
    howItFails: "every declining card is tried again on each redelivery, up to MaxDeliveryCount",
  },
  {
    name: "complete-before-record",
    file: "complete-before-record.js",
    load: () => import("./complete-before-record.js"),
    failureMode: "message completed before the billing record commits; a crash there loses the record",
    expectedFailure: "duplicateCharges",
    triggeringFault: "kill-after-record",
    howItFails:
      "the message is completed and the record never commits; the same event again after the 24 h key window (the " +
      "seed's nightly reconciliation re-sends events with no billing_records row) is charged a second time",
  },
  {
    name: "short-renewal-deadline",
    file: "short-renewal-deadline.js",
    load: () => import("./short-renewal-deadline.js"),
    failureMode: "maxAutoLockRenewalDurationInMs equal to LockDuration: the lock lapses mid-charge",
    expectedFailure: "duplicateCharges",
    triggeringFault: "slow-stripe",
    howItFails:
      "pass maxAutoLockRenewalDurationInMs = the queue's LockDuration: renewal stops, the lock lapses mid-call and a " +
      "competing replica charges again with a new UUID",
  },
  {
    name: "receive-and-delete",
    file: "receive-and-delete.js",
    load: () => import("./receive-and-delete.js"),
    failureMode: "receiveMode receiveAndDelete: the message is deleted before the charge",
    expectedFailure: "lostBillings",
    triggeringFault: "kill-after-claim",
    howItFails: "the broker deleted the message on delivery: nothing redelivers it (also: stripe-500)",
  },
  {
    name: "charge-random-key",
    file: "charge-random-key.js",
    flow: "charge",
    load: () => import("./charge-random-key.js"),
    failureMode: "legacy Charge with a new randomUUID() key per delivery: a redelivery charges the default card again",
    expectedFailure: "duplicateCharges",
    triggeringFault: "kill-after-stripe",
    howItFails: "the killed replica's charge exists; the redelivery draws a new key and charges again (also: slow-stripe, renew-busy)",
  },
  {
    name: "invoice-per-delivery-keys",
    file: "invoice-per-delivery-keys.js",
    flow: "invoice",
    load: () => import("./invoice-per-delivery-keys.js"),
    failureMode: "invoice, item, finalize and pay keyed per delivery: a redelivery creates and pays a second invoice",
    expectedFailure: "duplicateCharges",
    triggeringFault: "kill-after-stripe",
    howItFails: "the killed replica's invoice is paid; the redelivery's new keys make a second invoice, which is paid too",
  },
  {
    name: "meter-event-no-identifier",
    file: "meter-event-no-identifier.js",
    flow: "meter-event",
    load: () => import("./meter-event-no-identifier.js"),
    failureMode: "Billing Meter event without an identifier: a redelivered usage is counted twice in the meter's summaries",
    expectedFailure: "duplicateCharges",
    triggeringFault: "kill-after-stripe",
    howItFails: "the killed replica's event was accepted; the redelivery sends it again under a new Stripe-assigned identifier",
  },
];

/**
 * The proving ground's degraded scenarios (prove/scenarios/scenarios.ts) run this one beside the generated consumer, not the
 * chaos run: its key, record and settlement are right, so the per-event faults show nothing; what it gets wrong is
 * a dependency that stays degraded, where every 429, 5xx, timeout or refused connection spends one of the event's
 * attempts.
 */
export const naiveRetryExample = {
  name: "naive-retry",
  file: "naive-retry.js",
  load: () => import("./naive-retry.js"),
  failureMode: "429s, 5xx, timeouts and refused connections counted as attempts: a long outage dead-letters events that were never wrong",
  expectedFailure: "deadLettered",
  howItFails:
    "8 attempts, 5 s doubling, equal jitter: an event gives up 5 to 11 minutes into an outage (RetryAttemptsExhausted), " +
    "and every replica keeps calling the dependency that is down",
} as const satisfies Omit<BrokenExample, "triggeringFault"> & { expectedFailure: ExpectedFailure };
