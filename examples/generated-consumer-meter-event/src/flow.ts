// The Stripe call: one Billing Meter event per billing (`billing.meterEvents.create`). Yours to edit; the guard
// around it (src/consumer.ts) makes it run once per event, and chargeguard's lint rules check the call.
//
// Stripe deduplicates meter events on `identifier` (at most 100 characters) for at least 24 hours and answers a
// duplicate with 400 "An event already exists with identifier": the event is recorded, not invalid. There is no
// per-event read-back, so a billing still unknown past that window is dead-lettered for an operator to compare the
// meter's summaries (billing.meters.listEventSummaries), never re-sent: a second event would be counted twice.
import {
  type FlowAdapter,
  type MeterEventRequest,
  MeterEventUnverifiable,
  meterEventFlow,
  meterIdentifier,
  stripeErrorClass,
} from "chargeguard/runtime";

export type FlowRequest = MeterEventRequest;

/** Stripe's answer to an identifier it already has. */
const duplicateIdentifier = /An event already exists with identifier/i;

function isStripeInvalidRequest(error: unknown): error is { type: string; message: string } {
  return typeof error === "object" && error !== null && (error as { type?: unknown }).type === "StripeInvalidRequestError";
}

export const flow: FlowAdapter<FlowRequest> = {
  name: "meter-event",
  calls: 1,
  // Stripe's limits (value, timestamp within the past 35 days and at most 5 minutes ahead, identifier length),
  // checked before any call so an event Stripe would refuse is dead-lettered with the reason.
  check: (request, now) => meterEventFlow.check?.(request, now),
  async execute(stripe, request, context) {
    // Stable: derived from the record's key, never from the delivery (a per-delivery identifier counts twice).
    const identifier = request.identifier ?? meterIdentifier(context.idempotencyKey);
    if (context.pastKeyWindow && context.attempt > 1) throw new MeterEventUnverifiable(identifier);
    // Named for telemetry: the consumer's trace shows a `stripe billing.meter_events.create` span for this call.
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
    if (isStripeInvalidRequest(error) && duplicateIdentifier.test(error.message)) {
      return { kind: "done", objectId: request.identifier ?? meterIdentifier(idempotencyKey) };
    }
    return stripeErrorClass(error);
  },
};
