// An attempt that starts inside Stripe's 24 h key window and whose tries end past it (issue 41, the money model's
// day): Stripe committed the billing's first request and dropped the answer; a day less a second later the billing is
// retried, its try is held past the client's timeout while the window closes, and the SDK's own retry (the template
// ships maxNetworkRetries 1) goes out under a key Stripe has pruned: a second PaymentIntent. An attempt whose lease
// reaches past the window is past it: it looks up first, finds the first PaymentIntent and charges nothing. Checked at
// the Stripe emulator; the guard on PGlite; one virtual clock for both.
import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runFlowGuarded } from "../../../runtime/flows/guarded-flow-run.js";
import { paymentIntentFlow } from "../../../runtime/flows/payment-intent-flow.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { AdjustableClock } from "../../../sandbox/clock.js";
import { idempotencyWindowMs, startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { sandboxFlowWay } from "../support/sandbox-flow-way.js";

const clock = new AdjustableClock();
let emulator: StripeEmulator;
let guard: Guard;

beforeAll(async () => {
  emulator = await startStripeEmulator({ clock });
  guard = await Guard.open({ inMemory: true, clock, leaseMs: 60_000, periodCapCents: 1_000_000 });
});
afterAll(async () => {
  await guard?.close();
  await emulator?.stop();
});

it("a retry whose lease reaches past the key window looks up first: one PaymentIntent, not two", async () => {
  const admin = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 });
  const customer = (await admin.customers.create({ name: "straddle" })).id;
  const key = "straddle-1";
  const request = { amount: 1_000, currency: "usd", customer, payment_method: "pm_card_visa", confirm: true, off_session: true, metadata: { idempotency_key: key } };
  const way = sandboxFlowWay(guard, emulator, clock);
  const record = { scope: "straddle", key: { usage: key }, payload: request, spend: { period: "2026-12", currency: "usd", amount: 1_000 }, flow: "payment-intent", idempotencyKey: key, owner: "replica" };
  const run = () => runFlowGuarded(paymentIntentFlow as never, record, way);
  const mine = (r: { idempotencyKey: string | undefined }) => r.idempotencyKey === key;

  // Attempt 1: Stripe commits, every answer is lost (the try and the SDK's retry).
  const dropped = emulator.faults.inject({ action: "commitThenDrop", method: "POST", path: "/v1/payment_intents", times: 2, when: mine });
  expect((await run()).kind).toBe("unknown");
  dropped.remove();
  expect(emulator.ledger.paymentIntents(customer)).toHaveLength(1);

  // Attempt 2, a day less a second later: its try is held while the key window closes; the SDK retries after it.
  clock.advance(idempotencyWindowMs - 1_000);
  const held = emulator.faults.inject({ action: "commitThenHang", method: "POST", path: "/v1/payment_intents", times: 1, when: mine });
  const closing = setTimeout(() => clock.advance(2_000), 200);
  const outcome = await run();
  clearTimeout(closing);
  held.remove();

  const intents = emulator.ledger.paymentIntents(customer);
  expect(intents.map((intent) => intent.status)).toEqual(["succeeded"]);
  expect(outcome).toMatchObject({ kind: "done", objectId: intents[0]?.id });
});
