import type { Customer } from "./objects.js";
import { metadata, optionalHash, optionalString, rejectUnknown } from "./params.js";
import { cardBehaviour } from "./payment-methods.js";
import { route, type Route } from "./routes.js";

const createParams = new Set([
  "email", "name", "description", "metadata", "phone", "address", "shipping", "payment_method", "source",
  "invoice_settings", "preferred_locales", "expand",
]);

export const customerRoutes: Route[] = [
  route("POST", "/v1/customers", { object: "customer" }, ({ store, params }) => {
    rejectUnknown(params, createParams);
    const paymentMethod = optionalString(params, "payment_method");
    if (paymentMethod !== undefined) cardBehaviour(paymentMethod, "payment_method");
    const source = optionalString(params, "source");
    if (source !== undefined) cardBehaviour(source, "source");
    const invoiceSettings = optionalHash(params, "invoice_settings");
    const defaultPaymentMethod = invoiceSettings ? optionalString(invoiceSettings, "default_payment_method") : undefined;
    if (defaultPaymentMethod !== undefined) cardBehaviour(defaultPaymentMethod, "invoice_settings[default_payment_method]");
    const customer: Customer = {
      id: store.ids.next("cus"),
      object: "customer",
      created: store.nowSeconds(),
      livemode: false,
      email: optionalString(params, "email") ?? null,
      name: optionalString(params, "name") ?? null,
      description: optionalString(params, "description") ?? null,
      metadata: metadata(params),
      default_source: source ?? null,
      invoice_settings: { custom_fields: null, default_payment_method: defaultPaymentMethod ?? null, footer: null, rendering_options: null },
      balance: 0,
      shipping: null,
    };
    store.customers.set(customer.id, customer);
    return customer;
  }),
  route("GET", "/v1/customers/:id", { object: "customer" }, ({ store, pathParams: [customerId = ""] }) => store.customer(customerId, "id")),
];
