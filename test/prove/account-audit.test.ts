// The proving ground's audit of a contender's account: `chargeguard audit`'s engine, knowing only the account,
// counts the duplicates the ledger's ground truth counts.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditContenderAccount, describeAccountAudit } from "../../prove/account-audit.js";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";

let emulator: StripeEmulator;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
  const { id: customer } = await stripe.customers.create({});
  const pay = (amount: number, key: string) =>
    stripe.paymentIntents.create({ amount, currency: "usd", customer, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { idempotency_key: key } });
  // A random key per attempt, as a broken contender writes: three charges for one event (its own amount), one for another.
  await pay(1230, "a");
  emulator.clock.advance(25 * 3_600_000);
  await pay(1230, "b");
  await pay(1230, "c");
  await pay(4560, "d");
});
afterAll(() => emulator.stop());

describe("auditContenderAccount", () => {
  it("counts the payments beyond one per amount, and says whether that is the ground truth", async () => {
    const stripe = { apiKey: "rk_test_sandbox", apiBase: emulator.apiBase };
    const agreeing = await auditContenderAccount(stripe, "payment-intent", 2);
    expect(agreeing).toMatchObject({ duplicates: 2, groundTruth: 2, agrees: true });
    const disagreeing = await auditContenderAccount(stripe, "payment-intent", 3);
    expect(disagreeing?.agrees).toBe(false);
    expect(describeAccountAudit(disagreeing)).toEqual([["chargeguard audit", "2 duplicate(s) found, DISAGREES with the ground truth (3)"]]);
    expect(await auditContenderAccount(stripe, "charge", 0)).toMatchObject({ duplicates: 0, agrees: true });
  });

  it("leaves meter events out: Stripe has nothing per event to audit", async () => {
    expect(await auditContenderAccount({ apiKey: "rk_test_sandbox", apiBase: emulator.apiBase }, "meter-event", 5)).toBeUndefined();
    expect(describeAccountAudit(undefined)).toEqual([]);
  });
});
