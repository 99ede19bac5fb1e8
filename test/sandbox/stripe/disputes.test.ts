// Disputes as Stripe's testing docs describe them, through the real `stripe` SDK: the dispute test cards succeed and
// a dispute opens shortly after; it is listed, retrieved, answered with evidence or closed (lost), and a refund of a
// charged-back payment is refused with `charge_disputed`.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { stripeFor } from "./client.js";

let emulator: StripeEmulator;
let stripe: Stripe;
let later: StripeEmulator;
let slow: Stripe;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  stripe = stripeFor(emulator);
  later = await startStripeEmulator({ disputeDelayMs: 60_000 });
  slow = stripeFor(later);
});
afterAll(async () => {
  await emulator.stop();
  await later.stop();
});

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

async function pay(client: Stripe, paymentMethod: string, amount = 2500): Promise<{ customer: string; intent: Stripe.PaymentIntent; charge: string }> {
  const { id: customer } = await client.customers.create({});
  const intent = await client.paymentIntents.create(
    { amount, currency: "usd", customer, payment_method: paymentMethod, confirm: true, off_session: true, expand: ["latest_charge"] },
  );
  return { customer, intent, charge: (intent.latest_charge as Stripe.Charge).id };
}

describe("the dispute test cards", () => {
  it("pm_card_createDispute: the payment succeeds, then a fraudulent dispute opens needing a response", async () => {
    const { intent, charge } = await pay(stripe, "pm_card_createDispute");
    expect(intent.status).toBe("succeeded");
    expect((intent.latest_charge as Stripe.Charge).disputed).toBe(false);

    const { data } = await stripe.disputes.list({ charge });
    expect(data).toHaveLength(1);
    const [dispute] = data;
    expect(dispute).toMatchObject({ object: "dispute", charge, payment_intent: intent.id, amount: 2500, currency: "usd", reason: "fraudulent", status: "needs_response", is_charge_refundable: false, livemode: false });
    expect(dispute?.id).toMatch(/^dp_/);
    expect(dispute?.evidence_details).toMatchObject({ has_evidence: false, submission_count: 0, past_due: false });
    expect((await stripe.charges.retrieve(charge)).disputed).toBe(true);
    expect((await stripe.disputes.retrieve(dispute?.id ?? "")).status).toBe("needs_response");
    expect(emulator.ledger.disputes().map((found) => found.charge)).toContain(charge);
  });

  it("pm_card_createDisputeProductNotReceived opens a product_not_received dispute", async () => {
    const { charge } = await pay(stripe, "pm_card_createDisputeProductNotReceived");
    const [dispute] = (await stripe.disputes.list({ charge })).data;
    expect(dispute).toMatchObject({ reason: "product_not_received", status: "needs_response", payment_method_details: { type: "card", card: { case_type: "chargeback" } } });
  });

  it("pm_card_createDisputeInquiry opens an inquiry (warning_needs_response) that a full refund closes", async () => {
    const { intent, charge } = await pay(stripe, "pm_card_createDisputeInquiry");
    const [inquiry] = (await stripe.disputes.list({ payment_intent: intent.id })).data;
    expect(inquiry).toMatchObject({ status: "warning_needs_response", is_charge_refundable: true, payment_method_details: { card: { case_type: "inquiry" } } });
    const refund = await stripe.refunds.create({ charge });
    expect(refund.status).toBe("succeeded");
    expect((await stripe.disputes.retrieve(inquiry?.id ?? "")).status).toBe("warning_closed");
  });

  it("the legacy Charges API's dispute tokens open disputes too", async () => {
    const { id: customer } = await stripe.customers.create({});
    const charge = await stripe.charges.create({ amount: 900, currency: "usd", source: "tok_createDispute", customer });
    expect((await stripe.disputes.list({ charge: charge.id })).data[0]?.status).toBe("needs_response");
  });

  it("opens the dispute disputeDelayMs after the charge, on the emulator's clock", async () => {
    const { charge } = await pay(slow, "pm_card_createDispute");
    expect((await slow.disputes.list({ charge })).data).toEqual([]);
    expect((await slow.charges.retrieve(charge)).disputed).toBe(false);
    later.clock.advance(60_000);
    expect((await slow.disputes.list({ charge })).data.map((dispute) => dispute.status)).toEqual(["needs_response"]);
    expect((await slow.charges.retrieve(charge)).disputed).toBe(true);
  });
});

describe("answering a dispute", () => {
  it("a refund of a charged-back payment is refused with charge_disputed, before and after the dispute is lost", async () => {
    const { intent, charge } = await pay(stripe, "pm_card_createDispute");
    const [dispute] = (await stripe.disputes.list({ charge })).data;
    for (const params of [{ charge }, { payment_intent: intent.id }]) {
      const refused = await failure(stripe.refunds.create(params));
      expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(refused).toMatchObject({ statusCode: 400, code: "charge_disputed", message: `Charge ${charge} has been charged back; cannot issue a refund.` });
    }
    const closed = await stripe.disputes.close(dispute?.id ?? "");
    expect(closed.status).toBe("lost");
    expect(await failure(stripe.disputes.close(dispute?.id ?? ""))).toMatchObject({ statusCode: 400, type: "StripeInvalidRequestError" });
    expect(await failure(stripe.refunds.create({ charge }))).toMatchObject({ code: "charge_disputed" });
    expect((await stripe.refunds.list({ charge })).data).toEqual([]);
  });

  it("evidence submitted puts the dispute under review; Stripe's test phrases win or lose it shortly after", async () => {
    const won = await pay(slow, "pm_card_createDispute");
    const lost = await pay(slow, "pm_card_createDisputeProductNotReceived");
    later.clock.advance(60_000);
    const [winning] = (await slow.disputes.list({ charge: won.charge })).data;
    const [losing] = (await slow.disputes.list({ charge: lost.charge })).data;
    const reviewed = await slow.disputes.update(winning?.id ?? "", { evidence: { uncategorized_text: "winning_evidence", customer_name: "Ada" }, metadata: { ticket: "T-1" } });
    expect(reviewed).toMatchObject({ status: "under_review", metadata: { ticket: "T-1" }, evidence: { customer_name: "Ada" }, evidence_details: { has_evidence: true, submission_count: 1 } });
    await slow.disputes.update(losing?.id ?? "", { evidence: { uncategorized_text: "losing_evidence" } });
    expect((await slow.disputes.retrieve(winning?.id ?? "")).status).toBe("under_review");
    later.clock.advance(60_000);
    expect((await slow.disputes.retrieve(winning?.id ?? "")).status).toBe("won");
    expect((await slow.disputes.retrieve(losing?.id ?? "")).status).toBe("lost");
    const staged = await pay(slow, "pm_card_createDispute");
    later.clock.advance(60_000);
    const [pending] = (await slow.disputes.list({ charge: staged.charge })).data;
    expect((await slow.disputes.update(pending?.id ?? "", { evidence: { product_description: "API calls" }, submit: false })).status).toBe("needs_response");
  });

  it("lists every dispute newest first with Stripe's pagination, and answers a missing one 404", async () => {
    const before = (await stripe.disputes.list({ limit: 100 })).data.length;
    await pay(stripe, "pm_card_createDispute");
    await pay(stripe, "pm_card_createDispute");
    const all = await stripe.disputes.list({ limit: 100 });
    expect(all.data).toHaveLength(before + 2);
    const created = all.data.map((dispute) => dispute.created);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const first = await stripe.disputes.list({ limit: 1 });
    expect(first.has_more).toBe(true);
    const next = await stripe.disputes.list({ limit: 1, starting_after: first.data[0]?.id ?? "" });
    expect(next.data[0]?.id).toBe(all.data[1]?.id);
    expect(await failure(stripe.disputes.retrieve("dp_missing"))).toMatchObject({ statusCode: 404, code: "resource_missing", param: "id" });
  });
});
