// What one delivery did, gathered while its flow runs, and the billing outcome that amounts to. The scope is passed
// to the delivery's own instrumented parts (billing-telemetry.ts), never found through async context.
import type { Context, Span } from "@opentelemetry/api";
import type { BillingOutcomeName, DuplicateSource } from "./metric-names.js";

/** What one delivery did, gathered while its flow runs. */
export interface DeliveryScope {
  readonly queue: string;
  readonly span: Span;
  readonly source: DuplicateSource;
  readonly context: Context;
  /** The claim's answer (the store's status, "already-done" read as "already-billed"). */
  claim?: "claimed" | "busy" | "already-billed" | "declined" | "mismatch" | "cap-exceeded";
  /** A record turned charged or declined in this delivery (counted then), or was found so already (`*-noop`). */
  recorded?: "charged" | "declined" | "charged-noop" | "declined-noop";
  deadLetterReason?: string;
  retryScheduled?: boolean;
  /** Stripe answered one of this delivery's calls from its idempotency cache (counted once per delivery). */
  stripeReplayed?: boolean;
  settled?: boolean;
  /** The settlement failed (the message will be redelivered): its error type. */
  settlementFailed?: string;
}

/** The delivery's outcome from what its flow did; undefined when the flow stopped before deciding anything. */
export function outcomeOf(scope: DeliveryScope): BillingOutcomeName | undefined {
  switch (scope.recorded) {
    case "charged":
    case "declined":
      return scope.recorded;
    case "charged-noop":
    case "declined-noop":
      return "already_billed";
    case undefined:
      break;
  }
  switch (scope.claim) {
    case "already-billed":
    case "declined":
      return "already_billed";
    case "busy":
      return "busy";
    case "mismatch":
      return "mismatch";
    case "cap-exceeded":
      return "spend_cap";
    case "claimed":
    case undefined:
      break;
  }
  switch (scope.deadLetterReason) {
    case undefined:
      break;
    case "BillingRecordMismatch":
      return "mismatch";
    case "SpendCapExceeded":
      return "spend_cap";
    case "StripeConfigurationError":
      return "configuration";
    case "RetryAttemptsExhausted":
      return "unknown";
    default:
      return "invalid";
  }
  if (scope.retryScheduled) return "unknown";
  // Completed without a claim, record or dead letter cannot happen in the flow; settled otherwise means unknown.
  return scope.settled ? "unknown" : undefined;
}

/** Outcomes that mark the process span as failed (an operator has to look); busy and duplicates are normal. */
export function failedOutcome(outcome: BillingOutcomeName | undefined): string | undefined {
  switch (outcome) {
    case "unknown":
    case "invalid":
    case "mismatch":
    case "spend_cap":
    case "configuration":
      return outcome;
    default:
      return undefined;
  }
}
