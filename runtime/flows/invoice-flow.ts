// An invoice per billing: create it (draft, nothing pending swept in), add its items with `invoice:` (an item
// without it would land on the customer's next subscription invoice), finalize, pay. Each call is a recovery point
// with its own key (`<record key>:<step>`), so a replay resumes after the last recorded step. Past the key window a
// replayed key may be a new request: the invoice and its items are found by the key in their metadata first, and
// finalize / pay check the invoice's status (Stripe answers 400 when it is already finalized or paid). An invoice
// still open after pay is not declined: its payment may be processing, so the record stays pending until Stripe says.
import type Stripe from "stripe";
import { ChargeguardSignal, GuardInputError } from "../core/errors.js";
import { isStripeErrorOfType } from "../stripe/stripe-error.js";
import { lookupFrom, type FlowAdapter, type FlowContext } from "./flow-adapter.js";
import { stripeErrorClass } from "./stripe-error-class.js";
import { flowStripeCalls, maxInvoiceItems } from "../../tuning/flow-calls.js";

export interface InvoiceItemRequest {
  /** Minor units, positive. */
  amount: number;
  description?: string;
}

export interface InvoiceRequest {
  customer: string;
  currency: string;
  items: readonly InvoiceItemRequest[];
  /** Absent: the customer's default payment method. */
  paymentMethod?: string;
  description?: string;
  /** Copied onto the invoice; the flow adds `idempotency_key`. */
  metadata?: Record<string, string>;
}

/** Pay answered with the invoice void or uncollectible: it will not be paid (a card decline raises a card error). */
class InvoiceNotPaid extends ChargeguardSignal {
  override name = "InvoiceNotPaid";
  constructor(readonly invoiceId: string, readonly status: string | null) {
    super(`invoice ${invoiceId} is ${status ?? "unknown"} after pay`);
  }
}

/**
 * Still `open` after a pay attempt: not a decline. Its payment is processing (a bank debit takes days) or needs the
 * customer; it may yet be paid. The record stays pending and reserved; the retries and the reconciler ask Stripe
 * for the invoice's status until it is paid (done) or the retries run out (the reconciler keeps asking).
 */
class InvoicePaymentPending extends ChargeguardSignal {
  override name = "InvoicePaymentPending";
  constructor(readonly invoiceId: string) {
    super(`invoice ${invoiceId} is still open after pay: its payment is processing or awaits the customer; ask Stripe again later`);
  }
}

/**
 * The pay step. A retry first asks Stripe for the invoice: paid (a processing payment settled, or an earlier attempt
 * paid it) is done. Inside the key window the pay call itself is safe to repeat (Stripe replays its answer); past it
 * an open invoice that was already attempted is not paid again (a second debit), it stays pending until Stripe says.
 */
async function pay(stripe: Stripe, request: InvoiceRequest, context: FlowContext, invoiceId: string, key: string): Promise<string> {
  if (context.attempt > 1) {
    const current = await context.stripeCall("invoices.retrieve", () => stripe.invoices.retrieve(invoiceId));
    if (current.status === "paid") return invoiceId;
    if (context.pastKeyWindow && current.status === "open" && current.attempted) throw new InvoicePaymentPending(invoiceId);
  }
  let status: string | null = "paid";
  await unlessAlready(stripe, context, invoiceId, ["paid"], async () => {
    const paid = await context.stripeCall("invoices.pay", () =>
      stripe.invoices.pay(invoiceId, { off_session: true, ...(request.paymentMethod ? { payment_method: request.paymentMethod } : {}) }, { idempotencyKey: key }),
    );
    status = paid.status;
  });
  if (status === "open") throw new InvoicePaymentPending(invoiceId);
  if (status !== "paid") throw new InvoiceNotPaid(invoiceId, status);
  return invoiceId;
}

async function findInvoice(stripe: Stripe, request: InvoiceRequest, context: FlowContext): Promise<string | undefined> {
  for await (const invoice of stripe.invoices.list({ customer: request.customer, created: { gte: lookupFrom(context.createdAt) }, limit: 100 })) {
    if (invoice.metadata?.idempotency_key === context.idempotencyKey && invoice.id) return invoice.id;
  }
  return undefined;
}

async function findItem(stripe: Stripe, request: InvoiceRequest, invoice: string, stepKey: string): Promise<string | undefined> {
  for await (const item of stripe.invoiceItems.list({ customer: request.customer, invoice, limit: 100 })) {
    if (item.metadata?.idempotency_key === stepKey) return item.id;
  }
  return undefined;
}

/** A 400 from finalize or pay may mean it is already done (after the key window): the invoice's status decides. */
async function unlessAlready(stripe: Stripe, context: FlowContext, invoiceId: string, done: readonly string[], call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (!isStripeErrorOfType(error, "StripeInvalidRequestError")) throw error;
    const invoice = await context.stripeCall("invoices.retrieve", () => stripe.invoices.retrieve(invoiceId));
    if (!done.includes(invoice.status ?? "")) throw error;
  }
}

export const invoiceFlow: FlowAdapter<InvoiceRequest> = {
  name: "invoice",
  // create + items + finalize + pay, sized for the largest invoice allowed: the count infra tunes the queue by.
  calls: flowStripeCalls.invoice,
  check(request) {
    if (!Array.isArray(request.items) || request.items.length === 0) return "items: at least one invoice item";
    if (request.items.length > maxInvoiceItems) return `items: at most ${maxInvoiceItems} per billing`;
    const bad = request.items.findIndex((item) => !Number.isSafeInteger(item.amount) || item.amount <= 0);
    return bad === -1 ? undefined : `items.${bad}.amount must be a positive integer in minor units`;
  },
  async execute(stripe, request, context) {
    const problem = this.check?.(request, context.now);
    if (problem) throw new GuardInputError(problem);
    const invoiceId = await context.step("invoice", async (key) => {
      const found = context.pastKeyWindow && context.attempt > 1 ? await context.stripeCall("invoices.list", () => findInvoice(stripe, request, context)) : undefined;
      if (found) return found;
      const invoice = await context.stripeCall("invoices.create", () =>
        stripe.invoices.create(
          {
            customer: request.customer,
            currency: request.currency,
            auto_advance: false,
            collection_method: "charge_automatically",
            pending_invoice_items_behavior: "exclude",
            ...(request.description === undefined ? {} : { description: request.description }),
            metadata: { ...request.metadata, idempotency_key: context.idempotencyKey },
          },
          { idempotencyKey: key },
        ),
      );
      if (!invoice.id) throw new Error("Stripe answered an invoice without an id");
      return invoice.id;
    });
    for (const [index, item] of request.items.entries()) {
      await context.step(`item-${index}`, async (key) => {
        const found = context.pastKeyWindow && context.attempt > 1 ? await context.stripeCall("invoiceitems.list", () => findItem(stripe, request, invoiceId, key)) : undefined;
        if (found) return found;
        const created = await context.stripeCall("invoiceitems.create", () =>
          stripe.invoiceItems.create(
            {
              customer: request.customer,
              invoice: invoiceId,
              amount: item.amount,
              currency: request.currency,
              ...(item.description === undefined ? {} : { description: item.description }),
              metadata: { idempotency_key: key },
            },
            { idempotencyKey: key },
          ),
        );
        return created.id;
      });
    }
    await context.step("finalize", async (key) => {
      await unlessAlready(stripe, context, invoiceId, ["open", "paid", "uncollectible"], () =>
        context.stripeCall("invoices.finalize_invoice", () => stripe.invoices.finalizeInvoice(invoiceId, { auto_advance: false }, { idempotencyKey: key })),
      );
      return invoiceId;
    });
    await context.step("pay", (key) => pay(stripe, request, context, invoiceId, key));
    return { status: "done", objectId: invoiceId };
  },
  classify(error) {
    if (error instanceof InvoicePaymentPending) return { kind: "unknown", detail: error.message };
    if (error instanceof InvoiceNotPaid) return { kind: "declined", reason: error.message, objectId: error.invoiceId };
    return stripeErrorClass(error);
  },
};
