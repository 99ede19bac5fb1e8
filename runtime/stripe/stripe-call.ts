// Each Stripe call a flow makes, named for the API operation it is (Stripe's resource and method, snake case as in
// its API reference), so telemetry traces and times the call the flow actually makes: `charges.create`, each step of
// an invoice, a meter event, and the look-ups past the key window.

export const stripeOperations = [
  "payment_intents.create",
  "payment_intents.list",
  "charges.create",
  "charges.list",
  "invoices.create",
  "invoices.list",
  "invoices.retrieve",
  "invoices.finalize_invoice",
  "invoices.pay",
  "invoiceitems.create",
  "invoiceitems.list",
  "billing.meter_events.create",
] as const;
export type StripeOperation = (typeof stripeOperations)[number];

/** Runs one Stripe call under its operation's name (the consumer's telemetry traces and times it). */
export type StripeCallObserver = <T>(operation: StripeOperation, call: () => Promise<T>) => Promise<T>;

/** No telemetry: the call, as it is. */
export const unobservedStripeCall: StripeCallObserver = (_operation, call) => call();
