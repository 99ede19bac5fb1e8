// The audit and disputes, through the real `stripe` SDK on the Stripe emulator: a lost dispute returned the money
// (its twin is no longer a duplicate), a group with an open or won dispute is held for a person and never refunded,
// the control pair is refunded once over two `--refund --yes` runs; and an invoice created before `--until` but paid
// after it reads as paid by its payment (with that payment's refunds).
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatAudit, type AuditOptions, type AuditResult } from "../../../runtime/audit/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { auditOn } from "./audit-on.js";

let emulator: StripeEmulator;
let stripe: Stripe;
const ids: Record<string, string> = {};

const audit = (options: Partial<AuditOptions> = {}): Promise<AuditResult> => auditOn(emulator, options);

async function pay(name: string, usageId: string, paymentMethod = "pm_card_visa"): Promise<string> {
  const customer = ids[`cus:${usageId}`] ?? (ids[`cus:${usageId}`] = (await stripe.customers.create({})).id);
  const intent = await stripe.paymentIntents.create({ amount: 2400, currency: "usd", customer, payment_method: paymentMethod, confirm: true, off_session: true, metadata: { usage_id: usageId } });
  ids[name] = intent.id;
  emulator.clock.advance(60_000);
  return intent.id;
}

const disputeOf = async (paymentIntent: string) => (await stripe.disputes.list({ payment_intent: paymentIntent })).data[0] as Stripe.Dispute;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
  // A double charge whose first payment the cardholder disputed, and the merchant accepted (lost): one payment taken.
  await stripe.disputes.close((await disputeOf(await pay("lostFirst", "u-lost", "pm_card_createDispute"))).id);
  await pay("lostTwin", "u-lost");
  // A double charge whose duplicate is under an open dispute (a chargeback), and one whose duplicate has an inquiry.
  await pay("openKept", "u-open");
  await pay("openDuplicate", "u-open", "pm_card_createDispute");
  await pay("inquiryKept", "u-inquiry");
  await pay("inquiryDuplicate", "u-inquiry", "pm_card_createDisputeInquiry");
  // A dispute the merchant won on the first of two payments for one usage.
  const won = await disputeOf(await pay("wonFirst", "u-won", "pm_card_createDispute"));
  await stripe.disputes.update(won.id, { evidence: { uncategorized_text: "winning_evidence" } });
  await pay("wonTwin", "u-won");
  // The control: a plain double charge.
  await pay("controlKept", "u-control");
  await pay("controlDuplicate", "u-control");
}, 60_000);
afterAll(() => emulator.stop());

describe("the audit and disputes", () => {
  it("a lost dispute returned the money: its twin is not a duplicate, the pair is resolved through the dispute", async () => {
    const result = await audit();
    const lost = result.resolved.find((resolved) => resolved.refunded === ids["lostFirst"]);
    expect(lost).toMatchObject({ keep: ids["lostTwin"], dispute: expect.stringMatching(/^dp_/) });
    const flagged = [...result.groups, ...result.disputed].flatMap((group) => [group.keep, ...group.duplicates.map((d) => d.id)]);
    expect(flagged).not.toContain(ids["lostTwin"]);
    expect(flagged).not.toContain(ids["lostFirst"]);
  });

  it("holds every group an open or won dispute touches, with what the operator can do", async () => {
    const result = await audit();
    const held = new Map(result.disputed.map((group) => [group.duplicates[0]?.id, group]));
    expect([...held.keys()].sort()).toEqual([ids["openDuplicate"], ids["inquiryDuplicate"], ids["wonTwin"]].sort());
    expect(held.get(ids["openDuplicate"])?.disputes.map(({ payment, dispute }) => [payment, dispute.status])).toEqual([[ids["openDuplicate"], "needs_response"]]);
    expect(held.get(ids["openDuplicate"])?.advice).toMatch(/chargeback cannot be refunded; accept it/);
    expect(held.get(ids["inquiryDuplicate"])?.disputes[0]?.dispute.status).toBe("warning_needs_response");
    expect(held.get(ids["wonTwin"])).toMatchObject({ keep: ids["wonFirst"], disputes: [{ payment: ids["wonFirst"], dispute: { status: "won" } }] });
    expect(result.groups.map((group) => group.duplicates.map((d) => d.id))).toEqual([[ids["controlDuplicate"]]]);
  });

  it("--refund --yes twice refunds the control's duplicate once and no disputed or lost-dispute payment", async () => {
    const first = await audit({ refund: "issue" });
    expect(first.refunds?.outcomes?.map((outcome) => [outcome.duplicate, outcome.error])).toEqual([[ids["controlDuplicate"], undefined]]);
    const second = await audit({ refund: "issue" });
    expect(second.refunds?.outcomes).toEqual([]);
    expect(second.resolved.map((resolved) => resolved.refunded).sort()).toEqual([ids["controlDuplicate"], ids["lostFirst"]].sort());
    expect(second.disputed).toHaveLength(3);
    const refunded = emulator.ledger.refunds().map((refund) => refund.payment_intent);
    expect(refunded).toEqual([ids["controlDuplicate"]]);
  });

  it("shows the disputes in the text, JSON and CSV reports", async () => {
    const result = await audit();
    const text = formatAudit(result, "text");
    expect(text).toContain(`${ids["lostFirst"]} returned by lost dispute dp_`);
    expect(text).toContain("disputed (never refunded automatically; for a person):");
    expect(text).toContain("3 held for a dispute");
    const json = JSON.parse(formatAudit(result, "json")) as { disputed: Array<{ duplicates: string[]; disputes: Array<{ id: string; status: string }>; advice: string }>; summary: { disputed: number } };
    expect(json.summary.disputed).toBe(3);
    expect(json.disputed.find((group) => group.duplicates[0] === ids["openDuplicate"])).toMatchObject({ disputes: [{ id: expect.stringMatching(/^dp_/), status: "needs_response" }], advice: expect.any(String) });
    const rows = formatAudit(result, "csv").split("\n");
    expect(rows[0]).toBe("confidence,customer,currency,amount,keep,duplicate,to_refund,key,disputes");
    // Text cells quoted (audit-report's csvCell: no spreadsheet formula can start one).
    const open = rows.find((row) => row.includes(`,"${ids["openDuplicate"]}",`));
    expect(open).toMatch(new RegExp(`,0,"u-open","dp_\\w+ needs_response on ${ids["openDuplicate"]}"$`));
  });
});

describe("the --until edge", () => {
  it("an invoice created before --until and paid after it reads as paid by its payment, with that payment's refund", async () => {
    const { id: customer } = await stripe.customers.create({ invoice_settings: { default_payment_method: "pm_card_visa" } });
    const invoice = async () => {
      const draft = await stripe.invoices.create({ customer, currency: "usd", pending_invoice_items_behavior: "exclude", metadata: { usage_id: "u-edge" } });
      await stripe.invoiceItems.create({ customer, invoice: draft.id, amount: 1500, currency: "usd" });
      return stripe.invoices.finalizeInvoice(draft.id!);
    };
    const first = await stripe.invoices.pay((await invoice()).id!, { off_session: true });
    emulator.clock.advance(60_000);
    const second = await invoice();
    emulator.clock.advance(60_000);
    const until = Math.floor(emulator.clock.now() / 1000);
    emulator.clock.advance(60_000);
    const paid = await stripe.invoices.pay(second.id!, { off_session: true, expand: ["payments"] });
    const payment = paid.payments?.data[0]?.payment;
    // The second bill was refunded by hand, after --until.
    await stripe.refunds.create(payment?.payment_intent ? { payment_intent: payment.payment_intent as string } : { charge: payment?.charge as string });
    const result = await audit({ customer, until });
    expect(result.examined).toBe(2);
    expect(result.groups).toEqual([]);
    expect(result.resolved).toMatchObject([{ keep: first.id, refunded: second.id }]);
    const refunding = await audit({ customer, until, refund: "issue" });
    expect(refunding.refunds?.outcomes).toEqual([]);
  });
});
