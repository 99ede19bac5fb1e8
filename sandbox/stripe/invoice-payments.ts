import { resourceMissing } from "./stripe-failures.js";
import type { InvoicePayment } from "./invoice-objects.js";
import { listParamNames, listQuery } from "./list-params.js";
import type { StripeList } from "./objects.js";
import { optionalEnum, optionalString, rejectUnknown } from "./params.js";
import { route, type Route } from "./routes.js";
import { invoicePaymentsKey } from "./store.js";

// Invoice payments (API 2026-10-28): which charge paid (or failed to pay) an invoice, each pay attempt one.

const listParams = new Set([...listParamNames, "invoice", "status"]);

export const invoicePaymentRoutes: Route[] = [
  route("GET", "/v1/invoice_payments/:id", { object: "invoice_payment" }, ({ store, pathParams: [id = ""] }) => {
    const payment = store.invoicePayments.get(id);
    if (!payment) throw resourceMissing("invoice_payment", id, "id");
    return payment;
  }),

  route("GET", "/v1/invoice_payments", { object: "invoice_payment", list: true }, ({ store, params }) => {
    rejectUnknown(params, listParams);
    const invoice = optionalString(params, "invoice");
    const status = optionalEnum(params, "status", ["canceled", "open", "paid"] as const);
    const where = status === undefined ? {} : { where: (payment: InvoicePayment) => payment.status === status };
    const page = store.invoicePayments.list(listQuery(params), { ...(invoice === undefined ? {} : { index: invoicePaymentsKey(invoice) }), ...where });
    const body: StripeList<InvoicePayment> = { object: "list", data: page.data, has_more: page.hasMore, url: "/v1/invoice_payments" };
    return body;
  }),
];
