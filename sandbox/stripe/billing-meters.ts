import { invalidRequest, resourceMissing } from "./stripe-failures.js";
import type { BillingMeter, BillingMeterEvent, BillingMeterEventSummary, StripeList } from "./objects.js";
import { optionalEnum, optionalHash, optionalInteger, optionalString, rejectUnknown, requiredInteger, requiredString } from "./params.js";
import { route, type Route } from "./routes.js";
import type { StripeStore } from "./store.js";

// Billing Meters (v1): meters, meter events deduplicated on `identifier`, and the aggregated summaries that are the
// only read-back Stripe offers. Stripe keeps identifiers for a rolling window of at least 24 hours; the sandbox
// keeps them exactly 24 hours on its clock, so a re-send after that is counted again, as it may be at Stripe.

export const meterIdentifierWindowSeconds = 24 * 3_600;
const pastWindowSeconds = 35 * 86_400;
const futureWindowSeconds = 5 * 60;

const meterParams = new Set(["display_name", "event_name", "default_aggregation", "customer_mapping", "value_settings", "event_time_window", "expand"]);
const eventParams = new Set(["event_name", "payload", "identifier", "timestamp", "expand"]);
const summaryParams = new Set(["customer", "start_time", "end_time", "value_grouping_window", "limit", "starting_after", "ending_before", "expand"]);

function meter(store: StripeStore, id: string): BillingMeter {
  const found = store.meters.get(id);
  if (!found) throw resourceMissing("billing meter", id, "id");
  return found;
}

/** The identifier was accepted within the window (its entry is dropped once older). */
function seen(store: StripeStore, identifier: string, now: number): boolean {
  const at = store.meterIdentifiers.get(identifier);
  if (at === undefined) return false;
  if (now - at < meterIdentifierWindowSeconds) return true;
  store.meterIdentifiers.delete(identifier);
  return false;
}

export const billingMeterRoutes: Route[] = [
  route("POST", "/v1/billing/meters", { object: "billing.meter" }, ({ store, params }) => {
    rejectUnknown(params, meterParams);
    const aggregation = optionalHash(params, "default_aggregation");
    const formula = aggregation ? optionalEnum(aggregation, "formula", ["sum", "count", "last"] as const) : undefined;
    if (!formula) throw invalidRequest("Missing required param: default_aggregation[formula].", { code: "parameter_missing", param: "default_aggregation[formula]" });
    const mapping = optionalHash(params, "customer_mapping");
    const values = optionalHash(params, "value_settings");
    const eventName = requiredString(params, "event_name");
    if ([...store.meters.values()].some((m) => m.event_name === eventName && m.status === "active")) {
      throw invalidRequest(`An active meter with event_name '${eventName}' already exists.`, { param: "event_name" });
    }
    const now = store.nowSeconds();
    const created: BillingMeter = {
      id: store.ids.next("mtr"),
      object: "billing.meter",
      created: now,
      customer_mapping: { event_payload_key: (mapping && optionalString(mapping, "event_payload_key")) ?? "stripe_customer_id", type: "by_id" },
      default_aggregation: { formula },
      display_name: requiredString(params, "display_name"),
      event_name: eventName,
      event_time_window: optionalEnum(params, "event_time_window", ["day", "hour"] as const) ?? null,
      livemode: false,
      status: "active",
      status_transitions: { deactivated_at: null },
      updated: now,
      value_settings: { event_payload_key: (values && optionalString(values, "event_payload_key")) ?? "value" },
    };
    store.meters.set(created.id, created);
    return created;
  }),

  route("GET", "/v1/billing/meters/:id", { object: "billing.meter" }, ({ store, pathParams: [id = ""] }) => meter(store, id)),

  route("POST", "/v1/billing/meter_events", { object: "billing.meter_event" }, ({ store, params }) => {
    rejectUnknown(params, eventParams);
    const eventName = requiredString(params, "event_name");
    const payload = optionalHash(params, "payload");
    if (!payload) throw invalidRequest("Missing required param: payload.", { code: "parameter_missing", param: "payload" });
    const flat: Record<string, string> = {};
    for (const [key, value] of Object.entries(payload)) {
      if (typeof value !== "string") throw invalidRequest(`Invalid payload value for ${key}: must be a string`, { param: `payload[${key}]` });
      flat[key] = value;
    }
    const now = store.nowSeconds();
    const timestamp = optionalInteger(params, "timestamp") ?? now;
    if (timestamp < now - pastWindowSeconds || timestamp > now + futureWindowSeconds) {
      throw invalidRequest("Timestamp must be within the past 35 days and no more than 5 minutes in the future.", { code: "parameter_invalid_integer", param: "timestamp" });
    }
    const given = optionalString(params, "identifier");
    if (given !== undefined && given.length > 100) throw invalidRequest("Identifier must be at most 100 characters.", { param: "identifier" });
    const identifier = given ?? store.ids.next("mev");
    if (seen(store, identifier, now)) {
      throw invalidRequest(`An event already exists with identifier ${identifier}.`, { param: "identifier" });
    }
    store.meterIdentifiers.set(identifier, now);
    const event: BillingMeterEvent = { object: "billing.meter_event", created: now, event_name: eventName, identifier, livemode: false, payload: flat, timestamp };
    store.meterEvents.push(event);
    return event;
  }),

  route("GET", "/v1/billing/meters/:id/event_summaries", { object: "billing.meter_event_summary", list: true }, ({ store, params, pathParams: [id = ""] }) => {
    rejectUnknown(params, summaryParams);
    const found = meter(store, id);
    const customer = requiredString(params, "customer");
    const start = requiredInteger(params, "start_time");
    const end = requiredInteger(params, "end_time");
    if (end <= start) throw invalidRequest("end_time must be after start_time.", { param: "end_time" });
    const values = store.meterEvents
      .filter((event) => event.event_name === found.event_name && event.payload[found.customer_mapping.event_payload_key] === customer)
      .filter((event) => event.timestamp >= start && event.timestamp < end)
      .map((event) => Number(event.payload[found.value_settings.event_payload_key] ?? 0));
    const aggregated =
      found.default_aggregation.formula === "count" ? values.length : found.default_aggregation.formula === "last" ? (values.at(-1) ?? 0) : values.reduce((a, b) => a + b, 0);
    const summary: BillingMeterEventSummary = {
      id: `mtrusg_${found.id.slice(4)}_${start}`,
      object: "billing.meter_event_summary",
      aggregated_value: aggregated,
      end_time: end,
      livemode: false,
      meter: found.id,
      start_time: start,
    };
    const body: StripeList<BillingMeterEventSummary> = { object: "list", data: [summary], has_more: false, url: `/v1/billing/meters/${found.id}/event_summaries` };
    return body;
  }),
];
