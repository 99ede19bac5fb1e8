// A Billing Meter event per billing (`billing.meterEvents.create`). Stripe deduplicates on `identifier` (at most 100
// characters) over a rolling window of at least 24 h and answers a duplicate with 400 "An event already exists with
// identifier ...": the event is recorded, not invalid. Timestamps must lie within the past 35 days and at most 5
// minutes ahead. There is no per-event read-back (only aggregated summaries), so past the identifier window a pending
// record cannot be proven sent or not: it is refused (dead-lettered for an operator to compare the meter's
// summaries), never re-sent, because a second event would be counted twice.
import { createHash } from "node:crypto";
import { ChargeguardError } from "../core/errors.js";
import { isStripeErrorOfType } from "../stripe/stripe-error.js";
import type { FlowAdapter } from "./flow-adapter.js";
import { stripeErrorClass } from "./stripe-error-class.js";
import { flowStripeCalls } from "../../tuning/flow-calls.js";

export interface MeterEventRequest {
  /** The meter's `event_name`. */
  eventName: string;
  stripeCustomerId: string;
  /** Positive integer usage. */
  value: number;
  /** Unix seconds: when the usage happened (part of the event, never the delivery time). */
  timestamp: number;
  /** Stripe's dedupe identifier; default derived from the record's key (`meterIdentifier`). */
  identifier?: string;
}

export const maxMeterIdentifierLength = 100;
export const meterPastWindowSeconds = 35 * 86_400;
export const meterFutureWindowSeconds = 5 * 60;

/** The record's key when it fits in 100 characters (a stableKey with a scope up to 27 characters does), else `cg:<sha256>`. */
export function meterIdentifier(idempotencyKey: string): string {
  return idempotencyKey.length <= maxMeterIdentifierLength ? idempotencyKey : `cg:${createHash("sha256").update(idempotencyKey).digest("hex")}`;
}

const duplicateIdentifier = /An event already exists with identifier/i;

export const meterEventFlow: FlowAdapter<MeterEventRequest> = {
  name: "meter-event",
  calls: flowStripeCalls["meter-event"],
  check(request, now) {
    if (!Number.isSafeInteger(request.value) || request.value <= 0) return "value must be a positive integer";
    if (!Number.isSafeInteger(request.timestamp)) return "timestamp must be unix seconds";
    const nowSeconds = Math.floor(now / 1000);
    if (request.timestamp < nowSeconds - meterPastWindowSeconds) return `timestamp ${request.timestamp} is more than 35 days in the past`;
    if (request.timestamp > nowSeconds + meterFutureWindowSeconds) return `timestamp ${request.timestamp} is more than 5 minutes in the future`;
    if (request.identifier !== undefined && (request.identifier.length === 0 || request.identifier.length > maxMeterIdentifierLength)) {
      return `identifier must be 1-${maxMeterIdentifierLength} characters`;
    }
    return undefined;
  },
  async execute(stripe, request, context) {
    const identifier = request.identifier ?? meterIdentifier(context.idempotencyKey);
    if (context.pastKeyWindow && context.attempt > 1) {
      throw new MeterEventUnverifiable(identifier);
    }
    await context.stripeCall("billing.meter_events.create", () =>
      stripe.billing.meterEvents.create(
        {
          event_name: request.eventName,
          payload: { stripe_customer_id: request.stripeCustomerId, value: String(request.value) },
          identifier,
          timestamp: request.timestamp,
        },
        { idempotencyKey: context.idempotencyKey },
      ),
    );
    return { status: "done", objectId: identifier };
  },
  classify(error, request, idempotencyKey) {
    if (error instanceof MeterEventUnverifiable) return { kind: "invalid", reason: "MeterEventUnverifiable", detail: error.message };
    if (isStripeErrorOfType(error, "StripeInvalidRequestError") && duplicateIdentifier.test(error.message)) {
      return { kind: "done", objectId: request.identifier ?? meterIdentifier(idempotencyKey) };
    }
    return stripeErrorClass(error);
  },
};

/** Past Stripe's identifier window with the outcome unknown: neither sent nor unsent can be proven. */
export class MeterEventUnverifiable extends ChargeguardError {
  override name = "MeterEventUnverifiable";
  constructor(identifier: string) {
    super(
      `meter event ${identifier} is pending past Stripe's 24 h identifier window: Stripe has no per-event read-back, so ` +
        `re-sending could count it twice; compare billing.meters.listEventSummaries for the customer and resolve by hand`,
    );
  }
}
