// Telling one event's billings apart when a Stripe customer is billed several times (model-customers.ts): a Stripe
// object is an event's by its customer, amount and currency (amounts are unique per customer within a run), a guard
// record by its identity (account and period), a dead letter by its body; never by the Stripe customer alone.
import type { StripeLedger } from "../../../sandbox/index.js";
import { modelMeterEvent, type ModelEventBody, type ModelFlow } from "./model-cells.js";
import type { ModelEvent, MoneyModel } from "./model-invariants.js";

/** Whether a Stripe object of `customer` for `amount` in `currency` (empty: a meter event has none) is this event's. */
function objectOf(body: ModelEventBody, customer: string | null | undefined, amount: number, currency: string): boolean {
  return customer === body.stripeCustomerId && amount === body.amountCents && (currency === "" || currency === body.currency);
}

/** The ground truth per event: how many times Stripe billed this one event (not its customer). */
export function timesBilledEvent(ledger: StripeLedger, flow: ModelFlow, body: ModelEventBody): number {
  const customer = body.stripeCustomerId;
  switch (flow) {
    case "payment-intent":
      return ledger.paymentIntents(customer).filter((pi) => pi.status === "succeeded" && objectOf(body, pi.customer as string, pi.amount, pi.currency)).length;
    case "charge":
      return ledger.charges(customer).filter((charge) => charge.status === "succeeded" && objectOf(body, charge.customer as string, charge.amount, charge.currency)).length;
    case "invoice":
      return ledger.invoices(customer).filter((invoice) => invoice.status === "paid" && objectOf(body, invoice.customer as string, invoice.total, invoice.currency)).length;
    case "meter-event":
      return ledger
        .meterEvents()
        .filter((event) => event.event_name === modelMeterEvent && objectOf(body, event.payload.stripe_customer_id, Number(event.payload.value), "")).length;
  }
}

/** Whether the guard record with this key (its identity's canonical JSON) is the event's: its account and period. */
export function isRecordOf(recordKey: string, body: ModelEventBody): boolean {
  try {
    const key = JSON.parse(recordKey) as { customerId?: unknown; billingPeriod?: unknown };
    return key.customerId === body.customerId && key.billingPeriod === body.billingPeriod;
  } catch {
    return false;
  }
}

/** Whether a dead letter's body is this event's (a duplicate of it carries the same body). */
export function isLetterOf(letterBody: unknown, body: ModelEventBody): boolean {
  if (typeof letterBody !== "object" || letterBody === null) return false;
  const sent = letterBody as Partial<ModelEventBody>;
  return sent.customerId === body.customerId && sent.billingPeriod === body.billingPeriod && sent.amountCents === body.amountCents && sent.currency === body.currency;
}

/** The period a Stripe money object was billed for: its event's (the customer alone no longer says which). */
export function periodOfObject(events: readonly ModelEvent[]): (object: { customer: string; amount: number; currency: string }) => string | undefined {
  return (object) => events.find((event) => objectOf(event.body, object.customer, object.amount, object.currency))?.body.billingPeriod;
}

/** A vault's own cap refusal names the day's spend before it (sandbox/keybrake/spend-cap.ts's message). */
const vaultSpend = /charging (\d+) would take today's spend to (\d+)/;

/**
 * Whether a cap could have refused this event, by its dead letter. The guard's cap: every other event of its
 * (period, currency), billed or only holding a reservation then (a decline gives its back later), and its own amount
 * together pass the cap. The vault's cap: the day's spend it names could all be its (period, currency)'s, from the
 * events that could have reached the vault before it (an event the commands sent met none of the drain's, sent after
 * the commands' dead letters were resubmitted). A refusal neither explains counted another currency or period.
 */
export function capCouldRefuse(model: Readonly<MoneyModel>, event: ModelEvent, capCents: number, description: string | undefined): boolean {
  const { billingPeriod, currency } = event.body;
  const same = (e: ModelEvent) => e !== event && e.body.billingPeriod === billingPeriod && e.body.currency === currency;
  const total = (events: readonly ModelEvent[]) => events.filter(same).reduce((sum, e) => sum + e.body.amountCents, 0);
  const vault = vaultSpend.exec(description ?? "");
  if (vault === null) return total(model.events) + event.body.amountCents > capCents;
  const index = model.events.indexOf(event);
  const reachable = model.drawn !== undefined && index < model.drawn ? model.events.slice(0, model.drawn) : model.events;
  return Number(vault[2]) - Number(vault[1]) <= total(reachable);
}
