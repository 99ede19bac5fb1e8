// Disputes in a contender's account, seeded after its run (its ground truth is measured by then) so the audit's
// verdict covers them: a customer of its own, outside the workload, billed in the contender's flow twice for each of two
// things. The first pair's first payment was disputed and the dispute lost (the bank returned the money: one payment
// taken, no duplicate); the second pair's duplicate is under an open chargeback (held for a person, never refunded).
import type Stripe from "stripe";
import { createStripeClient } from "../../runtime/flows/index.js";
import type { ProvingFlow } from "./flows.js";

export interface DisputeFixture {
  customer: string;
  /** What the audit must report for that customer. */
  expected: { returnedByLostDispute: 1; held: 1 };
}

/** Two things billed (the customer is the fixture's own, so no workload amount can meet them). */
const lostAmount = 7_701;
const heldAmount = 7_702;

export async function seedDisputes(stripe: { apiKey: string; apiBase: string }, flow: Exclude<ProvingFlow, "meter-event">): Promise<DisputeFixture> {
  const client = createStripeClient({ apiKey: stripe.apiKey, apiBase: stripe.apiBase, timeoutMs: 80_000, maxNetworkRetries: 0 });
  const { id: customer } = await client.customers.create({ metadata: { chargeguard_proving_ground: "dispute-fixture" } });
  const pay = payIn(client, flow, customer);
  const lost = await pay(lostAmount, "disputed");
  await pay(lostAmount, "visa");
  await pay(heldAmount, "visa");
  await pay(heldAmount, "disputed");
  const [dispute] = (await client.disputes.list({ charge: lost })).data;
  if (!dispute) throw new Error(`the Stripe sandbox opened no dispute on ${lost}`);
  await client.disputes.close(dispute.id);
  return { customer, expected: { returnedByLostDispute: 1, held: 1 } };
}

/** One payment in the flow, on a plain card or on Stripe's dispute test card; returns its charge. */
function payIn(client: Stripe, flow: Exclude<ProvingFlow, "meter-event">, customer: string) {
  return async (amount: number, card: "visa" | "disputed"): Promise<string> => {
    // Each payment is its own thing to the check (the pairs are made on purpose): a key per payment, for the SDK's retries.
    const key = (step: string) => ({ idempotencyKey: `dispute-fixture:${customer}:${amount}:${card}:${step}` });
    if (flow === "charge") {
      return (await client.charges.create({ amount, currency: "usd", customer, source: card === "visa" ? "tok_visa" : "tok_createDispute" }, key("charge"))).id;
    }
    const paymentMethod = card === "visa" ? "pm_card_visa" : "pm_card_createDispute";
    if (flow === "payment-intent") {
      const intent = await client.paymentIntents.create({ amount, currency: "usd", customer, payment_method: paymentMethod, confirm: true, off_session: true }, key("intent"));
      return intent.latest_charge as string;
    }
    const draft = await client.invoices.create({ customer, currency: "usd", pending_invoice_items_behavior: "exclude" }, key("invoice"));
    await client.invoiceItems.create({ customer, invoice: draft.id, amount, currency: "usd" }, key("item"));
    await client.invoices.finalizeInvoice(draft.id!, {}, key("finalize"));
    const paid = await client.invoices.pay(draft.id!, { off_session: true, payment_method: paymentMethod, expand: ["payments"] }, key("pay"));
    const charge = paid.payments?.data[0]?.payment.charge;
    return typeof charge === "string" ? charge : (charge?.id ?? "");
  };
}
