// What differs per Stripe flow in the proving ground: the message body each flow's consumer takes (its
// src/event.ts schema), the Stripe requests that move money (where faults are injected), and where the ground truth
// is read at the Stripe emulator (card attempts for PaymentIntents, Charges and paid invoices; accepted meter events,
// which are exactly what the meter's event summaries add up). One workload, one answer sheet: every flow's body
// carries the event's customer and its unique amount, so a request, a hook's event and a ledger entry all lead back
// to the same workload event.
import type { StripeFaultRequest, StripeLedger } from "../../sandbox/index.js";
import type { CustomerDirectory } from "./customers.js";
import type { StripeAttempt } from "../measure/metrics.js";
import type { WorkloadEvent } from "./workload.js";

export const provingFlows = ["payment-intent", "charge", "invoice", "meter-event"] as const;
export type ProvingFlow = (typeof provingFlows)[number];

/** The generated consumers' meter (templates/files/flows/meter-event/src/event.ts `meterEventName`): the harness creates it. */
export const meterEventName = "billed_usage";

export interface FlowShape {
  flow: ProvingFlow;
  /** The requests that move money: each planned Stripe fault meets the event's first one. */
  moneyPaths: RegExp;
  /** Requests to read without faulting them (the invoice's items: they tell whose invoice a `pay` is). */
  observePaths?: RegExp;
  /**
   * The flow bills the customer's default card (Charges, invoices): declining events go to a twin customer whose
   * default card declines. PaymentIntents name the card in the body; meter events take no card (their declines
   * are billed like any other usage).
   */
  defaultSource: boolean;
  /** The message body as the flow's schema wants it (`stripeCustomerId` still the workload's, as for every flow). */
  body(event: WorkloadEvent, timestampSeconds: number): unknown;
  /** The customer and the amount a money-moving request is for, as the request spells them. */
  requestTarget(request: StripeFaultRequest): { customer: unknown; amount: unknown };
  /** What reached Stripe, as card attempts (or, for meter events, one succeeded attempt per counted event). */
  attempts(ledger: StripeLedger, directory: CustomerDirectory): StripeAttempt[];
  /** Stripe objects the flow created (PaymentIntents, charges, invoices, meter events). */
  objects(ledger: StripeLedger): number;
}

/** Every charge is one card attempt (Stripe records declined ones too). */
export function cardAttempts(ledger: StripeLedger, directory: CustomerDirectory): StripeAttempt[] {
  return ledger.charges().map((charge) => ({
    paymentIntentId: charge.payment_intent ?? charge.id,
    customer: (charge.customer === null ? undefined : directory.toWorkload(charge.customer)) ?? charge.customer ?? "(none)",
    amountCents: charge.amount,
    outcome: charge.status === "succeeded" ? "succeeded" : charge.failure_code === null ? "other" : "declined",
  }));
}

/** The customer and amount of any flow's body (a parsed event or a message body): what identifies the event. */
export function bodyTarget(body: unknown): { customer: unknown; amount: unknown } {
  if (body === null || typeof body !== "object") return { customer: undefined, amount: undefined };
  const fields = body as { stripeCustomerId?: unknown; amountCents?: unknown; quantity?: unknown; lines?: unknown };
  const firstLine = Array.isArray(fields.lines) ? (fields.lines[0] as { amountCents?: unknown } | undefined) : undefined;
  return { customer: fields.stripeCustomerId, amount: fields.amountCents ?? firstLine?.amountCents ?? fields.quantity };
}

const paymentIntentShape: FlowShape = {
  flow: "payment-intent",
  moneyPaths: /^\/v1\/(payment_intents|charges)$/,
  defaultSource: false,
  body: (event) => event.body,
  requestTarget: (request) => ({ customer: request.params.customer, amount: request.params.amount }),
  attempts: cardAttempts,
  objects: (ledger) => ledger.paymentIntents().length,
};

/** The fields every flow's body is made from; a malformed event's too (its body is broken after). */
function source(event: WorkloadEvent) {
  return {
    customerId: event.usage?.customerId ?? `acct-${event.stripeCustomerId.replace(/^cus_pg/, "")}`,
    stripeCustomerId: event.stripeCustomerId,
    billingPeriod: event.billingPeriod,
    amountCents: event.amountCents,
    currency: event.usage?.currency ?? "usd",
  };
}

/** A malformed event breaks one rule of the flow's schema, as the workload's own malformation kinds do. */
function malformed(event: WorkloadEvent, valid: Record<string, unknown>, amountPath: (body: Record<string, unknown>, value: number) => void): unknown {
  const pick = Number(event.id.slice(1)) || 0;
  const copy = structuredClone(valid);
  switch (event.malformation) {
    case "bad-json":
      return JSON.stringify(valid).slice(0, -(1 + (pick % 12)));
    case "missing-field": {
      const fields = Object.keys(copy);
      delete copy[fields[pick % fields.length] as string];
      return copy;
    }
    case "negative-amount":
      amountPath(copy, -event.amountCents);
      return copy;
    case "fractional-amount":
      amountPath(copy, event.amountCents + 0.5);
      return copy;
    case "malformed-currency":
      if ("currency" in copy) copy.currency = "US$";
      else copy.timestamp = "yesterday";
      return copy;
    case "oversized-body":
      return { ...copy, [Object.keys(copy)[0] as string]: `${String(Object.values(copy)[0])}${"x".repeat(64 * 1024)}` };
    default:
      return copy;
  }
}

const chargeShape: FlowShape = {
  flow: "charge",
  moneyPaths: /^\/v1\/charges$/,
  defaultSource: true,
  body(event) {
    const valid = source(event);
    return event.malformation ? malformed(event, valid, (body, value) => (body.amountCents = value)) : valid;
  },
  requestTarget: (request) => ({ customer: request.params.customer, amount: request.params.amount }),
  attempts: cardAttempts,
  objects: (ledger) => ledger.charges().length,
};

/** Invoices: the money moves at `pay`, whose request names only the invoice; its items (one per event) name the rest. */
function invoiceShape(): FlowShape {
  const invoiceTargets = new Map<string, { customer: unknown; amount: unknown }>();
  return {
    flow: "invoice",
    moneyPaths: /^\/v1\/invoices\/[^/]+\/pay$/,
    observePaths: /^\/v1\/invoiceitems$/,
    defaultSource: true,
    body(event) {
      const { stripeCustomerId, billingPeriod, amountCents, currency } = source(event);
      const valid = {
        usageId: event.id,
        stripeCustomerId,
        day: `${billingPeriod}-15`,
        currency,
        lines: [{ amountCents, description: `usage ${event.id}` }],
      };
      return event.malformation ? malformed(event, valid, (body, value) => ((body.lines as { amountCents: number }[])[0]!.amountCents = value)) : valid;
    },
    requestTarget(request) {
      if (request.path === "/v1/invoiceitems") {
        const target = { customer: request.params.customer, amount: request.params.amount };
        if (typeof request.params.invoice === "string") invoiceTargets.set(request.params.invoice, target);
        return target;
      }
      const invoice = request.path.split("/")[3] ?? "";
      return invoiceTargets.get(invoice) ?? { customer: undefined, amount: undefined };
    },
    attempts: cardAttempts,
    objects: (ledger) => ledger.invoices().length,
  };
}

const meterEventShape: FlowShape = {
  flow: "meter-event",
  moneyPaths: /^\/v1\/billing\/meter_events$/,
  defaultSource: false,
  body(event, timestampSeconds) {
    const valid = { usageId: event.id, stripeCustomerId: event.stripeCustomerId, quantity: event.amountCents, timestamp: timestampSeconds };
    return event.malformation ? malformed(event, valid, (body, value) => (body.quantity = value)) : valid;
  },
  requestTarget(request) {
    const payload = request.params.payload as Record<string, unknown> | undefined;
    return { customer: payload?.stripe_customer_id, amount: payload?.value };
  },
  // Each accepted event is counted in the meter's summaries: an event counted twice is a duplicate billing.
  attempts: (ledger, directory) =>
    ledger
      .meterEvents()
      .filter((event) => event.event_name === meterEventName)
      .map((event) => {
        const customer = event.payload.stripe_customer_id ?? "(none)";
        return { paymentIntentId: event.identifier, customer: directory.toWorkload(customer) ?? customer, amountCents: Number(event.payload.value), outcome: "succeeded" };
      }),
  objects: (ledger) => ledger.meterEvents().length,
};

/** A fresh shape per run (the invoice shape learns which invoice is whose as requests pass). */
export function flowShape(flow: ProvingFlow): FlowShape {
  switch (flow) {
    case "payment-intent":
      return paymentIntentShape;
    case "charge":
      return chargeShape;
    case "invoice":
      return invoiceShape();
    case "meter-event":
      return meterEventShape;
  }
}
