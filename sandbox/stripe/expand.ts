import { invalidRequest } from "./stripe-failures.js";
import type { FormObject } from "./form.js";
import { invoicePaymentsKey, type StripeStore } from "./store.js";

// Stripe's `expand[]`: replace an id in the response with the object it names (`latest_charge`,
// `data.customer` in lists, `latest_charge.customer`). Paths are checked before the endpoint runs, so a bad
// one never leaves a half-done request behind.

export type ObjectKind =
  | "customer"
  | "payment_intent"
  | "charge"
  | "refund"
  | "dispute"
  | "invoice"
  | "invoiceitem"
  | "invoice_payment"
  | "billing.meter"
  | "billing.meter_event"
  | "billing.meter_event_summary";

/** What a route answers: one object, or a list / search result of them. */
export interface Returns {
  object: ObjectKind;
  list?: true;
}

const links: Record<ObjectKind, Partial<Record<string, ObjectKind>>> = {
  customer: {},
  payment_intent: { customer: "customer", latest_charge: "charge" },
  charge: { customer: "customer", payment_intent: "payment_intent" },
  refund: { charge: "charge", payment_intent: "payment_intent" },
  dispute: { charge: "charge", payment_intent: "payment_intent" },
  invoice: { customer: "customer" },
  invoiceitem: { customer: "customer", invoice: "invoice" },
  invoice_payment: { invoice: "invoice" },
  "billing.meter": {},
  "billing.meter_event": {},
  "billing.meter_event_summary": {},
};

/**
 * Fields Stripe sends only when expanded (includable): an invoice's `payments` list. Computed from the store, they
 * end a path (nothing inside them expands further).
 */
const includables: Partial<Record<ObjectKind, Record<string, (store: StripeStore, object: Record<string, unknown>) => unknown>>> = {
  invoice: {
    payments: (store, invoice) => {
      const id = String(invoice["id"]);
      return { object: "list", data: store.invoicePayments.indexed(invoicePaymentsKey(id)), has_more: false, url: `/v1/invoice_payments?invoice=${id}` };
    },
  },
};

/** The validated paths of `expand[]`, relative to each returned object. */
export function expansionPaths(params: FormObject, returns: Returns): string[][] {
  const raw = params["expand"];
  if (raw === undefined || raw === "") return [];
  const requested = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : undefined;
  if (!requested || requested.some((path) => typeof path !== "string")) throw invalidRequest("Invalid expand: expected a list of paths.", { param: "expand" });
  return (requested as string[]).map((path) => {
    const segments = path.split(".");
    if (returns.list && segments.shift() !== "data") throw notExpandable(path);
    if (segments.length === 0 || segments.length > 4) throw notExpandable(path);
    if (segments.length === 1 && includables[returns.object]?.[segments[0] ?? ""]) return segments;
    let kind = returns.object;
    for (const segment of segments) {
      const next = links[kind][segment];
      if (!next) throw notExpandable(path);
      kind = next;
    }
    return segments;
  });
}

/** A copy of `result` with the paths expanded; the stored objects stay as they are. */
export function expand(result: unknown, paths: string[][], returns: Returns, store: StripeStore): unknown {
  if (paths.length === 0) return result;
  const expandItem = (item: unknown) => paths.reduce((value, segments) => expandPath(value as Record<string, unknown>, segments, returns.object, store), item);
  if (returns.list) {
    const page = result as { data: unknown[] };
    return { ...page, data: page.data.map(expandItem) };
  }
  return expandItem(result);
}

function expandPath(value: Record<string, unknown>, segments: string[], kind: ObjectKind, store: StripeStore): Record<string, unknown> {
  const [head = "", ...rest] = segments;
  const include = includables[kind]?.[head];
  if (include) return { ...value, [head]: include(store, value) };
  const nextKind = links[kind][head] as ObjectKind;
  const current = value[head];
  // Already an object when an earlier path expanded it (expand[]=latest_charge&expand[]=latest_charge.customer).
  let target = typeof current === "string" ? lookup(store, nextKind, current) : current;
  if (target !== null && typeof target === "object" && rest.length > 0) target = expandPath(target as Record<string, unknown>, rest, nextKind, store);
  return { ...value, [head]: target ?? current };
}

function lookup(store: StripeStore, kind: ObjectKind, id: string): unknown {
  switch (kind) {
    case "customer":
      return store.customers.get(id);
    case "payment_intent":
      return store.paymentIntents.get(id);
    case "charge":
      return store.charges.get(id);
    case "refund":
      return store.refunds.get(id);
    case "invoice":
      return store.invoices.get(id);
    case "invoiceitem":
      return store.invoiceItems.get(id);
    case "invoice_payment":
      return store.invoicePayments.get(id);
    default:
      return undefined;
  }
}

function notExpandable(path: string) {
  return invalidRequest(`This property cannot be expanded (${path}).`, { param: "expand" });
}
