// Steps 1-2 of the flow (ARCHITECTURE.md, "How a billing event travels"): parse and validate the event, derive its stable key and the flow's request, and
// let the flow refuse what Stripe would. Nothing here touches the guard or Stripe.
import type { Billable } from "../flows/billing-event.js";
import { parseBillingEvent } from "../flows/billing-event.js";
import { InvalidEventError } from "../core/errors.js";
import { stableKey } from "../core/stable-key.js";
import { describeError } from "../core/describe-error.js";
import type { FlowResult } from "./flow-result.js";
import type { HandlerSettings } from "./handler-settings.js";

/** A valid event, ready to be claimed and sent. */
export interface PreparedBilling {
  event: unknown;
  billing: Billable<unknown>;
  idempotencyKey: string;
  request: unknown;
}

/** The billing to run, or the result that ends the flow before the guard (invalid event, a bug building it). */
export async function prepareBilling(settings: HandlerSettings, body: unknown): Promise<PreparedBilling | FlowResult> {
  const parsed = await parseBillingEvent(settings.definition, body);
  if (!parsed.ok) return { outcome: { kind: "invalid", reason: "InvalidEvent", detail: parsed.reason } };
  const event = parsed.event;
  let billing: Billable<unknown>;
  let idempotencyKey: string;
  let request: unknown;
  try {
    billing = settings.definition.toBilling(event);
    idempotencyKey = stableKey(billing.keyFields ?? billing.key, { scope: settings.scope });
    request = billing.request(idempotencyKey);
  } catch (error) {
    // Only a proven-invalid event is dead-lettered as InvalidEvent; a bug in building the billing is no verdict on it.
    if (error instanceof InvalidEventError) return { outcome: { kind: "invalid", reason: "InvalidEvent", detail: error.message }, event };
    return { outcome: { kind: "unknown", detail: `building the billing failed: ${describeError(error)}` }, event };
  }
  const problem = settings.flow.check?.(request, settings.now());
  if (problem) {
    return { outcome: { kind: "invalid", reason: "InvalidEvent", detail: `${settings.flow.name}: ${problem}` }, event, billing, idempotencyKey };
  }
  return { event, billing, idempotencyKey, request };
}

export function isPrepared(result: PreparedBilling | FlowResult): result is PreparedBilling {
  return !("outcome" in result);
}
