// The seeds' broken consumers, for the proving ground: each one, under the fault that triggers it, must show the
// failure its seed describes. `file` is relative to this directory (the same in the sources and in dist/examples).
import type { StartConsumer } from "../../runtime/consumer-contract.js";

export type ExpectedFailure = "duplicateCharges" | "lostBillings" | "repeatedDeclines";

export interface BrokenExample {
  name: string;
  file: string;
  load: () => Promise<{ startConsumer: StartConsumer }>;
  /** The seed's failure mode, in one sentence. */
  failureMode: string;
  expectedFailure: ExpectedFailure;
  /** The fault (from the proving ground's schedule) that makes the failure show, in words. */
  triggeringFault: string;
}

export const brokenExamples: readonly BrokenExample[] = [
  {
    name: "no-idempotency-key",
    file: "no-idempotency-key.js",
    load: () => import("./no-idempotency-key.js"),
    failureMode: "PaymentIntent created without an idempotency key; a redelivered message charges again",
    expectedFailure: "duplicateCharges",
    triggeringFault: "lock lost while Stripe is slow (renewal ServerBusy), or a replica killed afterStripe",
  },
  {
    name: "message-id-key",
    file: "message-id-key.js",
    load: () => import("./message-id-key.js"),
    failureMode: "idempotency key from messageId; a resubmitted or re-sent event has a new messageId",
    expectedFailure: "duplicateCharges",
    triggeringFault: "producer duplicates (same event, new messageId) or a dead-letter resubmission with a new messageId",
  },
  {
    name: "random-uuid-key",
    file: "random-uuid-key.js",
    load: () => import("./random-uuid-key.js"),
    failureMode: "a new randomUUID() key per delivery with auto-complete, which abandons on a throw",
    expectedFailure: "duplicateCharges",
    triggeringFault: "Stripe commits then drops the connection, or a replica killed afterStripe",
  },
  {
    name: "abandon-on-timeout",
    file: "abandon-on-timeout.js",
    load: () => import("./abandon-on-timeout.js"),
    failureMode: "abandonMessage() on a Stripe timeout: immediate redelivery re-charges (no key)",
    expectedFailure: "duplicateCharges",
    triggeringFault: "Stripe commits then drops the connection (StripeConnectionError after commit)",
  },
  {
    name: "abandon-on-decline",
    file: "abandon-on-decline.js",
    load: () => import("./abandon-on-decline.js"),
    failureMode: "abandonMessage() on a card decline: the card is retried on every delivery",
    expectedFailure: "repeatedDeclines",
    triggeringFault: "declining cards in the workload (no fault needed)",
  },
  {
    name: "complete-before-record",
    file: "complete-before-record.js",
    load: () => import("./complete-before-record.js"),
    failureMode: "message completed before the billing record commits; a crash there loses the record",
    expectedFailure: "duplicateCharges",
    triggeringFault:
      "a replica killed afterRecord (before the commit), then the same event again after the 24 h key window",
  },
  {
    name: "short-renewal-deadline",
    file: "short-renewal-deadline.js",
    load: () => import("./short-renewal-deadline.js"),
    failureMode: "maxAutoLockRenewalDurationInMs equal to LockDuration: the lock lapses mid-charge",
    expectedFailure: "duplicateCharges",
    triggeringFault:
      "Stripe slower than the renewal deadline plus one lock (pass maxAutoLockRenewalDurationInMs = the queue's LockDuration)",
  },
  {
    name: "receive-and-delete",
    file: "receive-and-delete.js",
    load: () => import("./receive-and-delete.js"),
    failureMode: "receiveMode receiveAndDelete: the message is gone before the charge",
    expectedFailure: "lostBillings",
    triggeringFault: "a replica killed afterClaim, or a Stripe 500 before commit",
  },
];
