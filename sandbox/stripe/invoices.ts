import { attemptCharge, cardDeclined, settlePendingCharge } from "./charging.js";
import { invalidRequest, resourceMissing, unexpectedState } from "./stripe-failures.js";
import type { FormObject } from "./form.js";
import { listParamNames, listQuery } from "./list-params.js";
import type { Invoice, InvoiceItem, InvoiceLine } from "./invoice-objects.js";
import { invoicePayment, lineOf, newInvoice, newInvoiceItem } from "./invoice-shapes.js";
import type { StripeList } from "./objects.js";
import {
  currency,
  metadata,
  optionalBoolean,
  optionalEnum,
  optionalString,
  rejectUnknown,
  requiredInteger,
  requiredString,
} from "./params.js";
import { route, type Route } from "./routes.js";
import { invoiceItemsKey, invoicePaymentsKey, type StripeStore } from "./store.js";

// Invoices and invoice items: create a draft, add items (`invoice:` on the item, or `add_lines`), finalize, pay.
// An item created without `invoice` stays pending and is swept into the customer's next invoice created with
// `pending_invoice_items_behavior: include` (what a subscription's invoice does): the seeds' trap.

const createParams = new Set([
  "customer", "currency", "auto_advance", "collection_method", "pending_invoice_items_behavior", "description", "metadata",
  "default_payment_method", "days_until_due", "expand",
]);
const itemParams = new Set(["customer", "amount", "currency", "description", "invoice", "metadata", "expand"]);
const listInvoiceParams = new Set([...listParamNames, "customer", "status"]);
const listItemParams = new Set([...listParamNames, "customer", "invoice", "pending"]);
const payParams = new Set(["off_session", "payment_method", "expand"]);
const maxAmount = 99_999_999;

function lines(store: StripeStore, invoice: Invoice): StripeList<InvoiceLine> {
  const items = store.invoiceItems.indexed(invoiceItemsKey(invoice.id)).filter((item) => item.invoice === invoice.id);
  return { object: "list", data: items.map((item) => lineOf(item, invoice.id)), has_more: false, url: `/v1/invoices/${invoice.id}/lines` };
}

/** Totals follow the items while the invoice is a draft. */
function refresh(store: StripeStore, invoice: Invoice): Invoice {
  invoice.lines = lines(store, invoice);
  // Paid by a bank debit: open while its payment processes, paid once the charge settles.
  const processing = invoice.status === "open" ? store.invoicePayments.indexed(invoicePaymentsKey(invoice.id)).findLast((payment) => payment.status === "open") : undefined;
  const charge = processing ? store.charges.get(processing.payment.charge) : undefined;
  if (processing && charge && settlePendingCharge(store, charge)) {
    markPaid(store, invoice);
    processing.status = "paid";
    processing.amount_paid = processing.amount_requested;
    processing.is_default = true;
    processing.status_transitions.paid_at = store.nowSeconds();
  }
  if (invoice.status === "draft") {
    const total = invoice.lines.data.reduce((sum, line) => sum + line.amount, 0);
    invoice.subtotal = total;
    invoice.total = total;
    invoice.amount_due = total;
    invoice.amount_remaining = total - invoice.amount_paid;
  }
  return invoice;
}

function markPaid(store: StripeStore, invoice: Invoice): void {
  invoice.status = "paid";
  invoice.amount_paid = invoice.amount_due;
  invoice.amount_remaining = 0;
  invoice.status_transitions.paid_at = store.nowSeconds();
}

function notEditable(invoice: Invoice) {
  return unexpectedState("invoice_not_editable", `This invoice is ${invoice.status}: only a draft invoice can be changed or finalized (${invoice.id}).`);
}

function createItem(store: StripeStore, params: FormObject, invoiceId: string | undefined): InvoiceItem {
  const customerId = requiredString(params, "customer");
  store.customer(customerId);
  const amount = requiredInteger(params, "amount", { min: -maxAmount, max: maxAmount });
  const itemCurrency = currency(params);
  if (invoiceId !== undefined) {
    const invoice = store.invoice(invoiceId);
    if (invoice.customer !== customerId) throw invalidRequest(`The invoice ${invoiceId} belongs to another customer.`, { param: "invoice" });
    if (invoice.currency !== itemCurrency) throw invalidRequest(`The invoice ${invoiceId} is in ${invoice.currency}, not ${itemCurrency}.`, { param: "currency" });
    if (invoice.status !== "draft") throw notEditable(invoice);
  }
  const item = newInvoiceItem({
    id: store.ids.next("ii"),
    amount,
    currency: itemCurrency,
    customer: customerId,
    now: store.nowSeconds(),
    description: optionalString(params, "description") ?? null,
    invoice: invoiceId ?? null,
    metadata: metadata(params),
  });
  store.invoiceItems.add(item);
  return item;
}

export const invoiceRoutes: Route[] = [
  route("POST", "/v1/invoices", { object: "invoice" }, ({ store, params }) => {
    rejectUnknown(params, createParams);
    const customerId = requiredString(params, "customer");
    const customer = store.customer(customerId);
    const behaviour = optionalEnum(params, "pending_invoice_items_behavior", ["include", "exclude"] as const) ?? "exclude";
    const pending = store.invoiceItems.all(customerId).filter((item) => item.invoice === null);
    const invoiceCurrency = optionalString(params, "currency")?.toLowerCase() ?? pending[0]?.currency ?? "usd";
    if (!/^[a-z]{3}$/.test(invoiceCurrency)) throw invalidRequest(`Invalid currency: ${invoiceCurrency}.`, { param: "currency" });
    const invoice = newInvoice({
      id: store.ids.next("in"),
      autoAdvance: optionalBoolean(params, "auto_advance") ?? false,
      collectionMethod: optionalEnum(params, "collection_method", ["charge_automatically", "send_invoice"] as const) ?? "charge_automatically",
      now: store.nowSeconds(),
      currency: invoiceCurrency,
      customer: customerId,
      customerEmail: customer.email,
      customerName: customer.name,
      defaultPaymentMethod: optionalString(params, "default_payment_method") ?? customer.invoice_settings.default_payment_method,
      description: optionalString(params, "description") ?? null,
      metadata: metadata(params),
    });
    store.invoices.add(invoice);
    if (behaviour === "include") {
      for (const item of pending) {
        if (item.currency !== invoiceCurrency) continue;
        item.invoice = invoice.id;
        store.invoiceItems.reindex(item, [invoiceItemsKey(invoice.id)]);
      }
    }
    return refresh(store, invoice);
  }),

  route("GET", "/v1/invoices/:id", { object: "invoice" }, ({ store, pathParams: [id = ""] }) => refresh(store, store.invoice(id, "id"))),

  route("GET", "/v1/invoices", { object: "invoice", list: true }, ({ store, params }) => {
    rejectUnknown(params, listInvoiceParams);
    const customer = optionalString(params, "customer");
    const status = optionalString(params, "status");
    const page = store.invoices.list(listQuery(params), {
      ...(customer !== undefined ? { customer } : {}),
      ...(status !== undefined ? { where: (invoice: Invoice) => invoice.status === status } : {}),
    });
    const body: StripeList<Invoice> = { object: "list", data: page.data.map((invoice) => refresh(store, invoice)), has_more: page.hasMore, url: "/v1/invoices" };
    return body;
  }),

  route("POST", "/v1/invoices/:id/add_lines", { object: "invoice" }, ({ store, params, pathParams: [id = ""] }) => {
    rejectUnknown(params, new Set(["lines", "expand"]));
    const invoice = store.invoice(id, "id");
    if (invoice.status !== "draft") throw notEditable(invoice);
    const given = params["lines"];
    const list = Array.isArray(given) ? given : given && typeof given === "object" ? Object.values(given) : [];
    if (list.length === 0) throw invalidRequest("Missing required param: lines.", { code: "parameter_missing", param: "lines" });
    list.forEach((line, index) => {
      if (typeof line !== "object" || Array.isArray(line)) throw invalidRequest(`Invalid hash: lines[${index}]`, { param: `lines[${index}]` });
      rejectUnknown(line, new Set(["amount", "description", "metadata", "invoice_item"]));
      const existing = optionalString(line, "invoice_item");
      if (existing !== undefined) {
        const item = store.invoiceItems.get(existing);
        if (!item || item.customer !== invoice.customer) throw invalidRequest(`No such invoice item: '${existing}'`, { code: "resource_missing", param: `lines[${index}][invoice_item]` });
        if (item.invoice !== null && item.invoice !== invoice.id) throw invalidRequest(`The invoice item ${existing} is on another invoice.`, { param: `lines[${index}][invoice_item]` });
        item.invoice = invoice.id;
        store.invoiceItems.reindex(item, [invoiceItemsKey(invoice.id)]);
        return;
      }
      createItem(store, { ...line, customer: invoice.customer, currency: invoice.currency }, invoice.id);
    });
    return refresh(store, invoice);
  }),

  route("POST", "/v1/invoices/:id/finalize", { object: "invoice" }, ({ store, params, pathParams: [id = ""] }) => {
    rejectUnknown(params, new Set(["auto_advance", "expand"]));
    const invoice = refresh(store, store.invoice(id, "id"));
    if (invoice.status !== "draft") throw notEditable(invoice);
    const now = store.nowSeconds();
    invoice.status = invoice.amount_due === 0 ? "paid" : "open";
    invoice.status_transitions = { ...invoice.status_transitions, finalized_at: now, paid_at: invoice.status === "paid" ? now : null };
    const autoAdvance = optionalBoolean(params, "auto_advance");
    if (autoAdvance !== undefined) invoice.auto_advance = autoAdvance;
    return invoice;
  }),

  route("POST", "/v1/invoices/:id/pay", { object: "invoice" }, ({ store, params, pathParams: [id = ""] }) => {
    rejectUnknown(params, payParams);
    const invoice = refresh(store, store.invoice(id, "id"));
    if (invoice.status === "paid") throw unexpectedState("invoice_already_paid", "Invoice is already paid");
    if (invoice.status !== "open") throw unexpectedState("invoice_not_open", `You can only pay an open invoice; this one is ${invoice.status}.`);
    const customer = store.customer(invoice.customer);
    const paymentMethod =
      optionalString(params, "payment_method") ?? invoice.default_payment_method ?? customer.invoice_settings.default_payment_method ?? customer.default_source;
    if (!paymentMethod) throw invalidRequest("This customer has no attached payment source or default payment method.", { code: "invoice_no_payment_method_types" });
    const outcome = attemptCharge(store, {
      amount: invoice.amount_remaining,
      currency: invoice.currency,
      customer: invoice.customer,
      paymentMethod,
      paymentMethodParam: "payment_method",
      capture: true,
      paymentIntent: null,
      description: `Payment for invoice ${invoice.id}`,
      metadata: {},
      offSession: optionalBoolean(params, "off_session") ?? true,
    });
    invoice.attempt_count += 1;
    invoice.attempted = true;
    if (outcome.kind === "requiresAction") throw invalidRequest("This payment requires authentication; pay it on session.", { code: "invoice_payment_intent_requires_action" });
    store.invoicePayments.add(invoicePayment({ id: store.ids.next("inpay"), invoice, charge: outcome.charge.id, paid: outcome.kind === "charged", now: store.nowSeconds() }));
    if (outcome.kind === "declined") throw cardDeclined(outcome.error);
    // A bank debit leaves the invoice open, its payment processing: Stripe answers the pay with status "open".
    if (outcome.kind === "processing") return invoice;
    markPaid(store, invoice);
    return invoice;
  }),

  route("POST", "/v1/invoiceitems", { object: "invoiceitem" }, ({ store, params }) => {
    rejectUnknown(params, itemParams);
    return createItem(store, params, optionalString(params, "invoice"));
  }),

  route("GET", "/v1/invoiceitems/:id", { object: "invoiceitem" }, ({ store, pathParams: [id = ""] }) => {
    const item = store.invoiceItems.get(id);
    if (!item) throw resourceMissing("invoiceitem", id, "id");
    return item;
  }),

  route("GET", "/v1/invoiceitems", { object: "invoiceitem", list: true }, ({ store, params }) => {
    rejectUnknown(params, listItemParams);
    const customer = optionalString(params, "customer");
    const invoice = optionalString(params, "invoice");
    const pending = optionalBoolean(params, "pending");
    const where = (item: InvoiceItem) =>
      (customer === undefined || item.customer === customer) && (pending === undefined || (item.invoice === null) === pending);
    const page =
      invoice !== undefined
        ? store.invoiceItems.list(listQuery(params), { index: invoiceItemsKey(invoice), where })
        : store.invoiceItems.list(listQuery(params), { ...(customer !== undefined ? { customer } : {}), where });
    const body: StripeList<InvoiceItem> = { object: "list", data: page.data, has_more: page.hasMore, url: "/v1/invoiceitems" };
    return body;
  }),
];

