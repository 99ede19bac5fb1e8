// The Stripe calls: one paid invoice per billing. Create the invoice (a draft that sweeps in nothing pending), add
// its items with `invoice:` (an item without it would land on the customer's next subscription invoice), finalize,
// pay. Yours to edit; the guard around it (src/consumer.ts) runs it once per event, and chargeguard's lint rules
// check the calls.
//
// Each call is a recovery point (`context.step`) with its own key (`<record key>:<step>`): the guard stores the
// object id each step produced, so a replay resumes after the last recorded step instead of calling again. Past
// Stripe's 24 h key window a replayed key may be a new request, so the invoice and its items are first looked up by
// the key in their metadata, and finalize / pay check the invoice's status (Stripe answers 400 when already done).
import {
  type FlowAdapter,
  type FlowContext,
  GuardInputError,
  type InvoiceRequest,
  invoiceFlow,
  stripeErrorClass,
} from "chargeguard/runtime";

export type FlowRequest = InvoiceRequest;
type StripeClient = Parameters<FlowAdapter<FlowRequest>["execute"]>[0];

/** Created at most an hour before the record was claimed (clock skew): where a look-up starts. */
const lookupFrom = (createdAt: Date) => Math.floor(createdAt.getTime() / 1000) - 3_600;

/** The invoice was answered but not paid (Stripe raises a card error for a decline). */
class InvoiceNotPaid extends Error {
  override name = "InvoiceNotPaid";
  constructor(
    readonly invoiceId: string,
    readonly status: string | null,
  ) {
    super(`invoice ${invoiceId} is ${status ?? "unknown"} after pay`);
  }
}

const isInvalidRequest = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { type?: unknown }).type === "StripeInvalidRequestError";

async function findInvoice(stripe: StripeClient, request: FlowRequest, context: FlowContext): Promise<string | undefined> {
  for await (const invoice of stripe.invoices.list({ customer: request.customer, created: { gte: lookupFrom(context.createdAt) }, limit: 100 })) {
    if (invoice.metadata?.idempotency_key === context.idempotencyKey && invoice.id) return invoice.id;
  }
  return undefined;
}

async function findItem(stripe: StripeClient, request: FlowRequest, invoice: string, stepKey: string): Promise<string | undefined> {
  for await (const item of stripe.invoiceItems.list({ customer: request.customer, invoice, limit: 100 })) {
    if (item.metadata?.idempotency_key === stepKey) return item.id;
  }
  return undefined;
}

/** A 400 from finalize or pay may mean it is already done (after the key window): the invoice's status decides. */
async function unlessAlready(stripe: StripeClient, context: FlowContext, invoiceId: string, done: readonly string[], call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (!isInvalidRequest(error)) throw error;
    const invoice = await context.stripeCall("invoices.retrieve", () => stripe.invoices.retrieve(invoiceId));
    if (!done.includes(invoice.status ?? "")) throw error;
  }
}

export const flow: FlowAdapter<FlowRequest> = {
  name: "invoice",
  // create + items + finalize + pay: sizes the lease and lock (one delivery budget per call).
  calls: invoiceFlow.calls,
  // At least one item, at most maxInvoiceItems, positive amounts: refused before any call, with the reason.
  check: (request, now) => invoiceFlow.check?.(request, now),
  async execute(stripe, request, context) {
    const problem = invoiceFlow.check?.(request, context.now);
    if (problem) throw new GuardInputError(problem);
    const lookingUp = context.pastKeyWindow && context.attempt > 1;
    // Each Stripe call is named for telemetry (context.stripeCall): the consumer's trace shows a span per call.

    const invoiceId = await context.step("invoice", async (key) => {
      const found = lookingUp ? await context.stripeCall("invoices.list", () => findInvoice(stripe, request, context)) : undefined;
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
        const found = lookingUp ? await context.stripeCall("invoiceitems.list", () => findItem(stripe, request, invoiceId, key)) : undefined;
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

    await context.step("pay", async (key) => {
      let status: string | null = "paid";
      await unlessAlready(stripe, context, invoiceId, ["paid"], async () => {
        const paid = await context.stripeCall("invoices.pay", () =>
          stripe.invoices.pay(
            invoiceId,
            { off_session: true, ...(request.paymentMethod ? { payment_method: request.paymentMethod } : {}) },
            { idempotencyKey: key },
          ),
        );
        status = paid.status;
      });
      if (status !== "paid") throw new InvoiceNotPaid(invoiceId, status);
      return invoiceId;
    });
    return { status: "done", objectId: invoiceId };
  },
  classify(error) {
    if (error instanceof InvoiceNotPaid) return { kind: "declined", reason: error.message, objectId: error.invoiceId };
    return stripeErrorClass(error);
  },
};
