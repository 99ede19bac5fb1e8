// Issue 30, defect 5, end to end: an event that spends nothing is charged under the period "unpriced", and a
// consumer with vault keys asked the vault for an "unpriced" key, which threw before its rejection handler was
// attached: an unhandled rejection, the process's exit, and the same message crash-looping replicas. Now the key is
// a day's key of its own budget: the event is billed, and nothing is left unhandled.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningConsumer } from "../../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer } from "../../../../runtime/consumer/consumer.js";
import { meterEventFlow } from "../../../../runtime/flows/meter-event-flow.js";
import { KeybrakeKeyProvider } from "../../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../../sandbox/keybrake/index.js";
import { meteredCustomer } from "../../support/metered.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../../support/billing-sandbox.js";

let sandbox: BillingSandbox;
let keybrake: KeybrakeEmulator;
let consumer: RunningConsumer | undefined;
const logs: string[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: sandbox.stripe.apiBase, clock: sandbox.clock });
});
afterAll(async () => {
  await consumer?.close();
  await keybrake?.stop();
  await sandbox?.stop();
});
beforeEach(() => process.on("unhandledRejection", onUnhandled));
afterEach(() => process.off("unhandledRejection", onUnhandled));

describe('vault keys for a period that is not YYYY-MM (issue 30, defect 5)', () => {
  it('a meter event (period "unpriced") through a Keybrake key is billed; no unhandled rejection, the process lives', async () => {
    const queue = sandbox.queue();
    const { customer, meter, event: metered } = await meteredCustomer(sandbox.admin);
    const keyProvider = new KeybrakeKeyProvider({
      baseUrl: keybrake.baseUrl,
      apiKey: keybrake.apiKey,
      clock: sandbox.clock,
      allowedEndpoints: ["/v1/payment_intents", "/v1/billing/meter_events"],
    });
    const { flow: _flow, event: _event, hook: _hook, ...shared } = consumerOptionsFor(sandbox, queue);
    consumer = await startBillingConsumer({
      ...shared,
      pglite: sandbox.pglite,
      flow: meterEventFlow,
      event: metered,
      keyProvider,
      expectedPeriodTotalCents: 10_000,
      log: (line) => logs.push(line),
    });
    const at = Math.floor(sandbox.clock.now() / 1000) - 60;
    await sandbox.send(queue, { body: { usageId: `u-${customer.id}`, calls: 3, at }, messageId: "unpriced-1" });
    await waitFor("the event settled", () => logs.some((l) => l.includes(customer.id) && l.includes(", completed")));
    const summary = await sandbox.admin.billing.meters.listEventSummaries(meter.id, { customer: customer.id, start_time: at - 60, end_time: at + 120 });
    expect(summary.data[0]?.aggregated_value).toBe(3);
    expect(keybrake.keys().filter((key) => key.label === "chargeguard-unpriced")).toHaveLength(1);
    expect(unhandled).toEqual([]);
  });
});
