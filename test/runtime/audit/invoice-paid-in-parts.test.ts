// An invoice Stripe took in more than one payment (partial payments), billed twice: the audit's refund of the
// duplicate returns every part, each through the payment that took it, and reports what each gave back. A refund
// names one payment and returns at most what it took: through the first payment alone, the rest stayed taken while
// the report said the whole invoice was refunded. The charges and refunds are real (the Stripe emulator through the
// `stripe` SDK); the invoices are built here, since the emulator pays an invoice in one payment.
import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { detectDuplicates } from "../../../runtime/audit/detect.js";
import { fromCharge, fromInvoice, type PaymentRecord } from "../../../runtime/audit/payment-record.js";
import { issueRefunds, planRefunds } from "../../../runtime/audit/refund-duplicates.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

let emulator: StripeEmulator;
let stripe: Stripe;
let customer: string;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
  customer = (await stripe.customers.create({ source: "tok_visa" })).id;
});
afterAll(() => emulator.stop());

const charge = async (amount: number) => (await stripe.charges.create({ amount, currency: "usd", customer })).id;

/** A paid invoice of 1,000 cents for usage u-1, paid by these charges (each with what it paid). */
function paidInvoice(id: string, created: number, payments: Array<[string, number]>): Stripe.Invoice {
  return {
    id,
    object: "invoice",
    customer,
    currency: "usd",
    status: "paid",
    amount_paid: 1_000,
    created,
    metadata: { usage_id: "u-1" },
    payments: { object: "list", has_more: false, url: "", data: payments.map(([chargeId, paid]) => ({ status: "paid", amount_paid: paid, amount_requested: paid, payment: { type: "charge", charge: chargeId } })) },
  } as unknown as Stripe.Invoice;
}

/** What the audit reads: the invoices, and their charges as support (their refunds are the invoice's). */
async function records(invoices: Stripe.Invoice[], chargeIds: string[]): Promise<PaymentRecord[]> {
  const charges = await Promise.all(chargeIds.map((id) => stripe.charges.retrieve(id)));
  return [...invoices.map((invoice) => fromInvoice(invoice, ["metadata", "usage_id"], false)), ...charges.map((c) => fromCharge(c, ["metadata", "usage_id"], true))].filter(
    (record): record is PaymentRecord => record !== undefined,
  );
}

it("refunds a duplicate invoice paid in two parts through both payments, each reported with its amount; a second run refunds nothing", async () => {
  const kept = await charge(1_000);
  const [first, second] = [await charge(600), await charge(400)];
  const invoices = [paidInvoice("in_kept", 1_000, [[kept, 1_000]]), paidInvoice("in_twice", 1_060, [[first, 600], [second, 400]])];
  const all = [kept, first, second];

  const findings = detectDuplicates(await records(invoices, all), 3_600);
  expect(findings.groups.map((group) => [group.keep, group.duplicates.map((d) => [d.id, d.remaining])])).toEqual([["in_kept", [["in_twice", 1_000]]]]);
  const outcomes = await issueRefunds(stripe, planRefunds(findings.groups));
  expect(outcomes.map((o) => [o.duplicate, o.amount, o.error])).toEqual([["in_twice", 600, undefined], ["in_twice", 400, undefined]]);

  // At Stripe: the whole duplicate came back, each payment in full, the kept one untouched.
  const refunded = await Promise.all(all.map(async (id) => (await stripe.charges.retrieve(id)).amount_refunded));
  expect(refunded).toEqual([0, 600, 400]);
  expect(outcomes.reduce((sum, o) => sum + o.amount, 0)).toBe(1_000);

  const again = detectDuplicates(await records(invoices, all), 3_600);
  expect(again.groups).toEqual([]);
  expect(again.resolved.map((r) => r.refunded)).toEqual(["in_twice"]);
});
