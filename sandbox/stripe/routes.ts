import type { Returns } from "./expand.js";
import type { FormObject } from "./form.js";
import type { StripeStore } from "./store.js";

export interface RouteContext {
  store: StripeStore;
  params: FormObject;
  /** Captures of the route pattern, e.g. the PaymentIntent id. */
  pathParams: string[];
  /** Objects younger than this are not yet visible to search (Stripe's search can lag). */
  searchLagMs: number;
}

export interface Route {
  method: "GET" | "POST";
  pattern: RegExp;
  /** What the 200 body holds, for `expand[]`. */
  returns: Returns;
  /** Returns the 200 body; throws `StripeFailure` for Stripe errors. */
  handle(context: RouteContext): unknown;
}

const id = "([A-Za-z0-9_]+)";

export function route(method: Route["method"], template: string, returns: Returns, handle: Route["handle"]): Route {
  return { method, pattern: new RegExp(`^${template.replaceAll(":id", id)}$`), returns, handle };
}
