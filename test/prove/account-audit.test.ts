// The proving ground's audit of a contender's account: `chargeguard audit`'s engine, knowing only the account,
// counts the duplicates the ledger's ground truth counts, and reports the disputes the check seeds (a lost one as money
// returned, an open one held) apart from them. One audit per account, as the proving ground makes it.
import Stripe from "stripe";
import { afterEach, describe, expect, it } from "vitest";
import { auditContenderAccount, describeAccountAudit } from "../../prove/measure/account-audit.js";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";

const running: StripeEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.stop()));
});

/** An account as a broken contender leaves it: a random key per attempt, three charges for one event, one for another. */
async function brokenAccount(): Promise<StripeEmulator> {
  const emulator = await startStripeEmulator();
  running.push(emulator);
  const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
  const { id: customer } = await stripe.customers.create({});
  const pay = (amount: number, key: string) =>
    stripe.paymentIntents.create({ amount, currency: "usd", customer, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { idempotency_key: key } });
  await pay(1230, "a");
  emulator.clock.advance(25 * 3_600_000);
  await pay(1230, "b");
  await pay(1230, "c");
  await pay(4560, "d");
  return emulator;
}

const account = (emulator: StripeEmulator) => ({ apiKey: "rk_test_sandbox", apiBase: emulator.apiBase });

describe("auditContenderAccount", () => {
  it("counts the payments beyond one per amount beside the ground truth, and the seeded disputes apart", async () => {
    const emulator = await brokenAccount();
    const audit = await auditContenderAccount(account(emulator), "payment-intent", 2);
    expect(audit).toMatchObject({ duplicates: 2, groundTruth: 2, disputes: { returnedByLostDispute: 1, held: 1 }, agrees: true });
    expect(describeAccountAudit(audit)).toEqual([["chargeguard audit", "2 duplicate(s) found; seeded disputes: 1 lost (money returned), 1 held, agrees with the ground truth"]]);
    // The seeded disputes are in the account, opened and decided at Stripe, and nothing was refunded.
    expect(emulator.ledger.disputes().map((dispute) => dispute.status).sort()).toEqual(["lost", "needs_response"]);
    expect(emulator.ledger.refunds()).toEqual([]);
  });

  it("disagrees when the ground truth differs, naming it", async () => {
    const disagreeing = await auditContenderAccount(account(await brokenAccount()), "payment-intent", 3);
    expect(disagreeing?.agrees).toBe(false);
    expect(describeAccountAudit(disagreeing)).toEqual([
      ["chargeguard audit", "2 duplicate(s) found; seeded disputes: 1 lost (money returned), 1 held, DISAGREES with the ground truth (3; disputes: 1 lost, 1 held expected)"],
    ]);
  });

  it("seeds and audits the disputes in the charge and invoice flows too", async () => {
    for (const flow of ["charge", "invoice"] as const) {
      const emulator = await brokenAccount();
      expect(await auditContenderAccount(account(emulator), flow, 0), flow).toMatchObject({ duplicates: 0, disputes: { returnedByLostDispute: 1, held: 1 }, agrees: true });
      expect(emulator.ledger.disputes(), flow).toHaveLength(2);
    }
  });

  it("leaves meter events out: Stripe has nothing per event to audit", async () => {
    expect(await auditContenderAccount(account(await brokenAccount()), "meter-event", 5)).toBeUndefined();
    expect(describeAccountAudit(undefined)).toEqual([]);
  });
});
