// The money invariants at Stripe: what the Stripe emulator holds for a run's customers, read through its own API with
// the real SDK (as an auditor reads an account), set against the guard's records. Every Stripe money object of the
// run's flow (PaymentIntent, charge, invoice and its items, meter event) maps to exactly one guard record by the key
// it carries (metadata `idempotency_key`; a meter event's `identifier`); a billed one to a record `done` with its id
// (or held `unsettleable` for an operator, kept);
// no record `done` lacks its billed object at Stripe; one meter event per identifier; Stripe's billed total per
// (period, currency) at or under the cap (capViolations). Stripe has no API that lists
// meter events (only aggregated summaries), so meter events alone are read from the emulator's account record.
import Stripe from "stripe";
import { meterIdentifier } from "../../../runtime/index.js";
import { DEFAULT_STRIPE_BUDGET } from "../../../tuning/queue-tuning.js";
import { modelMeterEvent, type ModelFlow } from "./model-cells.js";
import type { ModelWorld } from "./model-world.js";

/** One money object Stripe holds, reduced to what the invariants compare. */
export interface StripeMoneyObject {
  kind: "PaymentIntent" | "charge" | "invoice" | "invoice item" | "meter event";
  id: string;
  customer: string;
  /** The key it carries back to its record: the record's idempotency key, or a meter event's identifier. */
  key: string | undefined;
  amount: number;
  currency: string;
  /** Money moved: a succeeded PaymentIntent or charge, a paid invoice, an accepted meter event. */
  billed: boolean;
  /** An invoice item's invoice (its key is the invoice's). */
  invoice?: string;
}

/** The guard's record as the invariants read it. */
export interface GuardRecordRow {
  record_key: string;
  idempotency_key: string;
  state: string;
  object_id: string | null;
  spend_period: string | null;
  spend_currency: string | null;
  spend_amount: string | number | null;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A reader as the template ships the Stripe client (the SDK's retries on), on the sandbox's emulator. */
function reader(world: ModelWorld): Stripe {
  return new Stripe("rk_test_sandbox", { ...world.sandbox.stripe.stripeConfig, maxNetworkRetries: DEFAULT_STRIPE_BUDGET.maxNetworkRetries });
}

async function customerHoldings(stripe: Stripe, flow: ModelFlow, customer: string): Promise<StripeMoneyObject[]> {
  switch (flow) {
    case "payment-intent":
      return (await all(stripe.paymentIntents.list({ customer, limit: 100 }))).map((pi) => ({
        kind: "PaymentIntent",
        id: pi.id,
        customer,
        key: pi.metadata?.idempotency_key,
        amount: pi.amount,
        currency: pi.currency,
        billed: pi.status === "succeeded",
      }));
    case "charge":
      return (await all(stripe.charges.list({ customer, limit: 100 }))).map((charge) => ({
        kind: "charge",
        id: charge.id,
        customer,
        key: charge.metadata?.idempotency_key,
        amount: charge.amount,
        currency: charge.currency,
        billed: charge.status === "succeeded",
      }));
    case "invoice": {
      const invoices = await all(stripe.invoices.list({ customer, limit: 100 }));
      const keyOf = new Map(invoices.map((invoice) => [invoice.id ?? "", invoice.metadata?.idempotency_key]));
      const items = await all(stripe.invoiceItems.list({ customer, limit: 100 }));
      return [
        ...invoices.map((invoice): StripeMoneyObject => ({
          kind: "invoice",
          id: invoice.id ?? "",
          customer,
          key: invoice.metadata?.idempotency_key,
          amount: invoice.total,
          currency: invoice.currency,
          billed: invoice.status === "paid",
        })),
        ...items.map((item): StripeMoneyObject => {
          const invoice = typeof item.invoice === "string" ? item.invoice : (item.invoice?.id ?? undefined);
          return { kind: "invoice item", id: item.id, customer, key: invoice === undefined ? undefined : keyOf.get(invoice), amount: item.amount, currency: item.currency, billed: false, ...(invoice ? { invoice } : {}) };
        }),
      ];
    }
    case "meter-event":
      return [];
  }
}

/** Every money object Stripe holds for the run's customers (Stripe refuses objects for customers it does not have). */
export async function stripeHoldings(world: ModelWorld, customers: readonly string[]): Promise<StripeMoneyObject[]> {
  const flow = world.cell.flow;
  if (flow === "meter-event") {
    const ours = new Set(customers);
    return world.sandbox.stripe.ledger
      .meterEvents()
      .filter((event) => event.event_name === modelMeterEvent && ours.has(event.payload.stripe_customer_id ?? ""))
      .map((event) => ({ kind: "meter event", id: event.identifier, customer: event.payload.stripe_customer_id ?? "", key: event.identifier, amount: Number(event.payload.value), currency: "", billed: true }));
  }
  const stripe = reader(world);
  const held: StripeMoneyObject[] = [];
  for (const customer of new Set(customers)) held.push(...(await customerHoldings(stripe, flow, customer)));
  return held;
}

/** The invariants between Stripe's holdings and the guard's records; returns the violations found. */
export function stripeViolations(flow: ModelFlow, held: readonly StripeMoneyObject[], records: readonly GuardRecordRow[]): string[] {
  const violations: string[] = [];
  // A meter event carries its record's identifier, every other object its record's idempotency key.
  const keyOfRecord = (row: GuardRecordRow) => (flow === "meter-event" ? meterIdentifier(row.idempotency_key) : row.idempotency_key);
  const byKey = new Map<string, GuardRecordRow[]>();
  for (const row of records) byKey.set(keyOfRecord(row), [...(byKey.get(keyOfRecord(row)) ?? []), row]);
  const billedPerKey = new Map<string, number>();
  for (const object of held) {
    const rows = object.key === undefined ? [] : (byKey.get(object.key) ?? []);
    const at = `Stripe's ${object.kind} ${object.id} (${object.amount} ${object.currency}${object.billed ? ", billed" : ""})`;
    if (rows.length !== 1) {
      violations.push(`${at} maps to ${rows.length} guard records by its key ${object.key ?? "(none)"}: a money object the guard ${rows.length === 0 ? "does not know (forgotten?)" : "holds twice"}`);
      continue;
    }
    if (!object.billed || object.key === undefined) continue;
    billedPerKey.set(object.key, (billedPerKey.get(object.key) ?? 0) + 1);
    const row = rows[0] as GuardRecordRow;
    // A record held unsettleable (a meter event past its identifier window, its outcome unknown) is kept for an
    // operator to resolve: it still accounts for the object.
    if (row.state === "unsettleable") continue;
    if (row.state !== "done" || row.object_id !== object.id) violations.push(`${at}: its record ${row.record_key} is ${row.state} with object ${row.object_id ?? "none"}, not done with it`);
  }
  for (const [key, times] of billedPerKey) if (times > 1) violations.push(`${times} billed ${flow} objects at Stripe under one key ${key}${flow === "meter-event" ? " (one meter event per identifier broken)" : ""}`);
  const billedIds = new Set(held.filter((object) => object.billed).map((object) => object.id));
  for (const row of records.filter((r) => r.state === "done")) {
    if (row.object_id === null || !billedIds.has(row.object_id)) violations.push(`record ${row.record_key} is done with ${row.object_id ?? "no object"}, and Stripe holds no billed ${flow} object by that id`);
  }
  return violations;
}

/**
 * Stripe's billed total per (period, currency) stays at or under the cap, for each capped currency: the cap read
 * where the money is, not in the guard's ledger. The period is the billed event's (`periodOf` the object: a customer
 * may be billed in several periods).
 */
export function capViolations(
  held: readonly StripeMoneyObject[],
  periodOf: (object: StripeMoneyObject) => string | undefined,
  caps: { currencies: readonly string[]; capCents: number },
): string[] {
  const totals = new Map<string, number>();
  for (const object of held) {
    if (!object.billed || object.kind === "invoice item" || object.kind === "meter event" || !caps.currencies.includes(object.currency)) continue;
    const at = `${periodOf(object) ?? "unknown period"}/${object.currency}`;
    totals.set(at, (totals.get(at) ?? 0) + object.amount);
  }
  return [...totals].filter(([, total]) => total > caps.capCents).map(([at, total]) => `Stripe billed ${total} in ${at}, over its cap of ${caps.capCents}`);
}
