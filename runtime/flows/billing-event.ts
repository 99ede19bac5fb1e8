// A team's own billing events: a schema (zod, or any Standard Schema) and a function from a valid event to what the
// guard needs (identity, spend) and what the flow sends. `UsageEvent` with the PaymentIntent flow is the default.
import { errorMessage } from "../core/describe-error.js";
import type { Spend } from "../guard/guard-store.js";
import { decodeEventBody, parseUsageEvent } from "../event/event-schema.js";
import { buildPaymentIntentParams, type PaymentIntentRequest } from "../stripe/payment-intent-params.js";
import type { UsageEvent } from "../event/usage-event.js";

/** The Standard Schema interface (standardschema.dev, v1), as zod 4, Valibot and ArkType implement it. */
export interface StandardSchemaV1<Output = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string; readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined }[] };

/** What one event bills: the guard's identity and spend, and the flow's request. */
export interface Billable<R> {
  /** The record's identity: the fields that make two events the same billing (e.g. `{ usageId }` or `{ customerId, day }`). */
  key: Record<string, string | number>;
  /** Reserved against the (period, currency) cap; absent: no cap applies (e.g. a meter event, priced later by Stripe). */
  spend?: Spend;
  /** The fields the idempotency key derives from, `stableKey(keyFields, { scope })`; default `key`. */
  keyFields?: Record<string, string | number>;
  /** The flow's request; it may carry the key (metadata), which is why it is a function of it. Pure: no clocks. */
  request(idempotencyKey: string): R;
}

export interface BillingEventDefinition<E, R> {
  schema: StandardSchemaV1<E>;
  toBilling(event: E): Billable<R>;
  /** Replaces body decoding and the schema (the default event keeps its own messages). */
  parse?(body: unknown): { ok: true; event: E } | { ok: false; reason: string };
}

export type ParsedEvent<E> = { ok: true; event: E } | { ok: false; reason: string };

/** Decodes the body (JSON object, string or bytes, 4 KB) and validates it; the reason names the failing fields. */
export async function parseBillingEvent<E>(definition: BillingEventDefinition<E, unknown>, body: unknown): Promise<ParsedEvent<E>> {
  if (definition.parse) return definition.parse(body);
  const decoded = decodeEventBody(body);
  if (!decoded.ok) return decoded;
  let result: StandardResult<E>;
  try {
    result = await definition.schema["~standard"].validate(decoded.value);
  } catch (error) {
    return { ok: false, reason: `body: the schema failed (${errorMessage(error)})` };
  }
  if (result.issues === undefined) return { ok: true, event: result.value };
  const reasons = result.issues.map((issue) => {
    const path = (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".");
    return `${path || "body"}: ${issue.message}`;
  });
  return { ok: false, reason: reasons.join("; ") || "body: invalid" };
}

/** The default: a UsageEvent billed as one PaymentIntent per (customer, month). */
export const usageEventBilling: BillingEventDefinition<UsageEvent, PaymentIntentRequest> = {
  schema: { "~standard": { version: 1, vendor: "chargeguard", validate: (value) => {
    const parsed = parseUsageEvent(value);
    return parsed.ok ? { value: parsed.event } : { issues: [{ message: parsed.reason }] };
  } } },
  parse: parseUsageEvent,
  toBilling: (event) => ({
    key: { customerId: event.customerId, billingPeriod: event.billingPeriod },
    // The key chargeguard has always derived for a usage event: existing records and Stripe's saved keys match it.
    keyFields: { customerId: event.customerId, billingPeriod: event.billingPeriod, amountCents: event.amountCents, currency: event.currency },
    spend: { period: event.billingPeriod, currency: event.currency, amount: event.amountCents },
    request: (idempotencyKey) => buildPaymentIntentParams(event, idempotencyKey),
  }),
};
