// The matrix the money model runs over (flow x store x vault) and what differs per flow: the event definition the
// consumer gets, the Stripe requests that move money (where injected faults land), and what each flow's billing is
// (model-event-match.ts reads the ground truth per event back from the Stripe emulator's ledger). Every flow takes
// the same usage body (a UsageEvent; the meter flow adds `at`), so one model of events serves all four.
import { z } from "zod";
import {
  chargeFlow,
  invoiceFlow,
  meterEventFlow,
  paymentIntentFlow,
  type BillingConsumerOptions,
  type BillingEventDefinition,
  type ChargeRequest,
  type InvoiceRequest,
  type MeterEventRequest,
  type UsageEvent,
} from "../../../runtime/index.js";

export const modelFlows = ["payment-intent", "charge", "invoice", "meter-event"] as const;
export const modelStores = ["pglite", "postgres"] as const;
/**
 * How the replicas get their Stripe keys: the environment's plain key; the vault's keys per (period, currency) with
 * STRIPE_API_KEY empty; or the vault's keys with a plain STRIPE_API_KEY also set beside them (which the vault refuses:
 * a probe that sends it is refused for ever).
 */
export const modelVaults = ["plain", "keybrake", "keybrake+plain"] as const;
export type ModelFlow = (typeof modelFlows)[number];
export type ModelStore = (typeof modelStores)[number];
export type ModelVault = (typeof modelVaults)[number];

export interface ModelCell {
  flow: ModelFlow;
  store: ModelStore;
  vault: ModelVault;
}

export const cellName = (cell: ModelCell): string => `${cell.flow}/${cell.store}/${cell.vault}`;

/** Whether the cell's replicas bill with the vault's keys (with or without a plain key beside them). */
export const usesVault = (cell: Pick<ModelCell, "vault">): boolean => cell.vault !== "plain";

/** Every cell of the matrix, for the large size (each one covered, not sampled). */
export const allCells: readonly ModelCell[] = modelFlows.flatMap((flow) =>
  modelStores.flatMap((store) => modelVaults.map((vault) => ({ flow, store, vault }))),
);

/** The meter every meter-event cell bills to (the emulator does not check it exists; summaries would). */
export const modelMeterEvent = "model_usage";

/** A usage body as every flow's consumer takes it: a UsageEvent, plus when the usage happened for meter events. */
export type ModelEventBody = UsageEvent & { at?: number };

const modelBody = z.strictObject({
  customerId: z.string().min(1),
  stripeCustomerId: z.string().min(1),
  paymentMethodId: z.string().min(1),
  billingPeriod: z.string().regex(/^\d{4}-\d{2}$/),
  amountCents: z.number().int().positive(),
  currency: z.string().regex(/^[a-z]{3}$/),
  at: z.number().int().optional(),
});
type ModelBody = z.infer<typeof modelBody>;

const keyOf = (e: ModelBody) => ({ customerId: e.customerId, billingPeriod: e.billingPeriod });
const spendOf = (e: ModelBody) => ({ period: e.billingPeriod, currency: e.currency, amount: e.amountCents });

const chargeEvent: BillingEventDefinition<ModelBody, ChargeRequest> = {
  schema: modelBody,
  toBilling: (e) => ({
    key: keyOf(e),
    spend: spendOf(e),
    request: (idempotencyKey) => ({ amount: e.amountCents, currency: e.currency, customer: e.stripeCustomerId, metadata: { idempotency_key: idempotencyKey } }),
  }),
};

const invoiceEvent: BillingEventDefinition<ModelBody, InvoiceRequest> = {
  schema: modelBody,
  toBilling: (e) => ({
    key: keyOf(e),
    spend: spendOf(e),
    request: () => ({ customer: e.stripeCustomerId, currency: e.currency, items: [{ amount: e.amountCents, description: `usage ${e.billingPeriod}` }] }),
  }),
};

const meterEvent: BillingEventDefinition<ModelBody, MeterEventRequest> = {
  schema: modelBody,
  // Usage priced later by Stripe: no spend reserved against the cap.
  toBilling: (e) => ({
    key: keyOf(e),
    request: () => ({ eventName: modelMeterEvent, stripeCustomerId: e.stripeCustomerId, value: e.amountCents, timestamp: e.at ?? 0 }),
  }),
};

/** The consumer options that make a replica bill with the cell's flow (the payment-intent flow is the default). */
export function flowOptions(flow: ModelFlow): Pick<BillingConsumerOptions<never, never>, "flow" | "event"> {
  const pick = (options: unknown) => options as Pick<BillingConsumerOptions<never, never>, "flow" | "event">;
  switch (flow) {
    case "payment-intent":
      return pick({ flow: paymentIntentFlow });
    case "charge":
      return pick({ flow: chargeFlow, event: chargeEvent });
    case "invoice":
      return pick({ flow: invoiceFlow, event: invoiceEvent });
    case "meter-event":
      return pick({ flow: meterEventFlow, event: meterEvent });
  }
}

/** The Stripe requests of each flow that create or move money: an injected fault meets one of these. */
export const moneyPaths: Record<ModelFlow, RegExp> = {
  "payment-intent": /^\/v1\/payment_intents$/,
  charge: /^\/v1\/charges$/,
  invoice: /^\/v1\/(invoices|invoiceitems)(\/[^/]+(\/(finalize|pay))?)?$/,
  "meter-event": /^\/v1\/billing\/meter_events$/,
};

/** Which Keybrake endpoints a flow's vault key must be allowed (the provider's default is PaymentIntents only). */
export const vaultEndpoints: Record<ModelFlow, string[]> = {
  "payment-intent": ["/v1/payment_intents"],
  charge: ["/v1/charges"],
  invoice: ["/v1/invoices", "/v1/invoiceitems"],
  "meter-event": ["/v1/billing/meter_events"],
};

/** Whether Stripe refuses (400) a request for a customer it does not have: meter events are accepted and checked later. */
export const refusesUnknownCustomer: Record<ModelFlow, boolean> = { "payment-intent": true, charge: true, invoice: true, "meter-event": false };
/** Whether a declining card declines the flow's billing (meter events take no card). */
export const declinesCards: Record<ModelFlow, boolean> = { "payment-intent": true, charge: true, invoice: true, "meter-event": false };
/** Whether the flow reserves the event's amount against the period's cap. */
export const reservesSpend: Record<ModelFlow, boolean> = { "payment-intent": true, charge: true, invoice: true, "meter-event": false };
