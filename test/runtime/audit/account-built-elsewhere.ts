// A Stripe account as another team's old consumer left it, built through the real SDK on the emulator's clock:
// several customers over several months, shared amounts, PaymentIntents, legacy Charges and invoices, the duplicates
// such a consumer makes and the traps an audit must not fall into. Returns the truth the audit is checked against.
import type Stripe from "stripe";
import type { AdjustableClock } from "../../../sandbox/clock.js";

export interface AccountTruth {
  /** Duplicate id -> kept id, for every certain duplicate (same key, currency, amount). */
  certain: Map<string, string>;
  /** Duplicate id -> kept id, for every likely duplicate (no key, same amount within the hour). */
  likely: Map<string, string>;
  /** Duplicates already refunded in full: reported as resolved, not as groups. */
  resolved: Set<string>;
  /** Every other payment that took money: never a duplicate, never refunded. */
  innocent: Set<string>;
  /** Partially refunded certain duplicate: what is left to refund. */
  partial: { id: string; remaining: number };
}

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

export async function buildAccountElsewhere(stripe: Stripe, clock: AdjustableClock): Promise<AccountTruth> {
  const truth: AccountTruth = { certain: new Map(), likely: new Map(), resolved: new Set(), innocent: new Set(), partial: { id: "", remaining: 0 } };
  const customer = async (card = "pm_card_visa") => (await stripe.customers.create({ source: "tok_visa", invoice_settings: { default_payment_method: card } })).id;
  const intent = async (cus: string, amount: number, usageId?: string, paymentMethod = "pm_card_visa") =>
    stripe.paymentIntents
      .create({ amount, currency: "usd", customer: cus, payment_method: paymentMethod, confirm: true, off_session: true, ...(usageId ? { metadata: { usage_id: usageId } } : {}) })
      .then((pi) => pi.id);
  const charge = async (cus: string, amount: number, usageId?: string) =>
    (await stripe.charges.create({ amount, currency: "usd", customer: cus, ...(usageId ? { metadata: { usage_id: usageId } } : {}) })).id;
  const invoice = async (cus: string, amount: number, usageId: string) => {
    const draft = await stripe.invoices.create({ customer: cus, currency: "usd", pending_invoice_items_behavior: "exclude", metadata: { usage_id: usageId } });
    await stripe.invoiceItems.create({ customer: cus, invoice: draft.id, amount, currency: "usd" });
    await stripe.invoices.finalizeInvoice(draft.id!);
    return (await stripe.invoices.pay(draft.id!, { off_session: true })).id!;
  };

  // Month 1. Ada: a redelivery charged usage u-1 twice, minutes apart (certain); 47.25 is also Bob's amount.
  const ada = await customer();
  const ada1 = await intent(ada, 4725, "u-1");
  clock.advance(3 * minute);
  truth.certain.set(await intent(ada, 4725, "u-1"), ada1);
  // Bob: same amount, same minute, other usage: two bills, never duplicates.
  const bob = await customer();
  truth.innocent.add(await intent(bob, 4725, "u-2")).add(await intent(bob, 4725, "u-3"));
  truth.innocent.add(ada1);
  // Cy: an old consumer without keys charged twice within 20 minutes (likely), and again next month (a new bill).
  const cy = await customer();
  const cy1 = await intent(cy, 1999);
  clock.advance(20 * minute);
  truth.likely.set(await intent(cy, 1999), cy1);
  truth.innocent.add(cy1);
  // Dee: a decline then a success for one usage, an unconfirmed and an uncaptured attempt: one payment taken.
  const dee = await customer();
  await intent(dee, 3000, "u-4", "pm_card_chargeDeclined").catch(() => undefined);
  truth.innocent.add(await intent(dee, 3000, "u-4"));
  await stripe.paymentIntents.create({ amount: 3000, currency: "usd", customer: dee, metadata: { usage_id: "u-4" } });
  await stripe.paymentIntents.create({ amount: 3000, currency: "usd", customer: dee, payment_method: "pm_card_visa", capture_method: "manual", confirm: true, off_session: true, metadata: { usage_id: "u-4" } });
  // Eve: legacy Charges API: a key charged twice (certain) and a keyless pair 5 minutes apart (likely).
  const eve = await customer();
  const eve1 = await charge(eve, 1250, "u-5");
  clock.advance(hour);
  truth.certain.set(await charge(eve, 1250, "u-5"), eve1);
  const eve3 = await charge(eve, 800);
  clock.advance(5 * minute);
  truth.likely.set(await charge(eve, 800), eve3);
  truth.innocent.add(eve1).add(eve3);

  // Month 2. Cy's same amount again: a new bill. Fay: an invoice paid twice for one usage (certain); Gus: two
  // invoices for two usages of the same amount in the same hour (their charges have no key: still not duplicates).
  clock.advance(31 * day);
  truth.innocent.add(await intent(cy, 1999));
  const fay = await customer();
  const fay1 = await invoice(fay, 1500, "u-6");
  clock.advance(2 * minute);
  truth.certain.set(await invoice(fay, 1500, "u-6"), fay1);
  const gus = await customer();
  truth.innocent.add(await invoice(gus, 1500, "u-7"));
  clock.advance(10 * minute);
  truth.innocent.add(await invoice(gus, 1500, "u-8"));
  truth.innocent.add(fay1);

  // Month 3. Hal: a dead letter resubmitted a week later (certain: keys do not expire for the audit); Ida: a duplicate
  // someone already refunded by hand (resolved) and one refunded in part (still a duplicate: the rest to refund).
  clock.advance(30 * day);
  const hal = await customer();
  const hal1 = await intent(hal, 9900, "u-9");
  clock.advance(7 * day);
  truth.certain.set(await intent(hal, 9900, "u-9"), hal1);
  truth.innocent.add(hal1);
  const ida = await customer();
  const ida1 = await intent(ida, 2000, "u-10");
  const refundedByHand = await intent(ida, 2000, "u-10");
  await stripe.refunds.create({ payment_intent: refundedByHand });
  truth.resolved.add(refundedByHand);
  const ida3 = await intent(ida, 600, "u-11");
  const partly = await intent(ida, 600, "u-11");
  await stripe.refunds.create({ payment_intent: partly, amount: 100 });
  truth.certain.set(partly, ida3);
  truth.partial = { id: partly, remaining: 500 };
  truth.innocent.add(ida1).add(ida3);
  return truth;
}
