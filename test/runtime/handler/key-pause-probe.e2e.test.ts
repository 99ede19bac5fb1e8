// Issue 41, defect 2: a pause that never ended. After Stripe refused the key (401/403) the consumer paused intake and
// probed `GET /v1/payment_intents` with the environment's plain key. With vault keys and STRIPE_API_KEY also set, the
// probe sent the plain key to the vault, which refuses it for ever; a meter-event (charge, invoice) consumer on the
// restricted key its README asks for cannot read PaymentIntents. Both billed nothing until restarted. Now the probe
// asks with the key billing uses and a request the flow's key may make: the pause ends when the key works again.
// The real SDKs against the sandbox (a restricted key's missing permission is the emulator's `missingPermission`). A
// key that may read but not write stays paused until it may write: the probe posts the flow's creates, empty.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { meterEventFlow } from "../../../runtime/flows/meter-event-flow.js";
import { KeybrakeKeyProvider } from "../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../sandbox/keybrake/index.js";
import { meteredCustomer } from "../support/metered.js";
import { consumerOptionsFor, startBillingSandbox, type BillingSandbox } from "../support/billing-sandbox.js";

let sandbox: BillingSandbox;
let keybrake: KeybrakeEmulator;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: sandbox.stripe.apiBase, clock: sandbox.clock });
});
afterAll(async () => {
  await Promise.all(running.map((consumer) => consumer.close()));
  await keybrake?.stop();
  await sandbox?.stop();
});

async function start(queue: string, logs: string[], extra: Partial<BillingConsumerOptions>): Promise<void> {
  const { flow: _flow, event: _event, hook: _hook, ...shared } = consumerOptionsFor(sandbox, queue);
  const consumer = await startBillingConsumer({
    ...shared,
    pglite: sandbox.pglite,
    log: (line) => logs.push(line),
    configurationFaultProbe: { firstProbeDelayMs: 300, maxProbeDelayMs: 600 },
    ...extra,
  } as BillingConsumerOptions);
  running.push(consumer);
}

describe("the pause after a refused key ends when the key works again (issue 41, defect 2)", () => {
  it("vault keys with STRIPE_API_KEY also set: the probe asks with the vault's period key, not the plain key", async () => {
    const queue = sandbox.queue();
    const logs: string[] = [];
    const keyProvider = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock: sandbox.clock });
    // The plain key stays set (rk_test_sandbox, from the shared options) beside the vault's keys.
    await start(queue, logs, { keyProvider, expectedPeriodTotalCents: 100_000 });
    const revoked = sandbox.stripe.faults.inject({ action: "revokedKey", method: "POST", path: "/v1/payment_intents", times: 1 });
    const event = await sandbox.event();
    await sandbox.send(queue, { body: event, messageId: "vault-paused-1" });
    await vi.waitFor(() => expect(revoked.hits).toBe(1), { timeout: 20_000 });
    await vi.waitFor(() => expect(logs.some((line) => line.startsWith("Stripe accepts the key again"))).toBe(true), { timeout: 10_000 });
    await vi.waitFor(() => expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).filter((pi) => pi.status === "succeeded")).toHaveLength(1), { timeout: 20_000 });
    expect(logs.filter((line) => line.startsWith("Stripe still refuses the key"))).toEqual([]);
  });

  it("a meter-event consumer whose key cannot read PaymentIntents: the probe makes a request its key may make", async () => {
    const queue = sandbox.queue();
    const logs: string[] = [];
    const { customer, meter, event: metered } = await meteredCustomer(sandbox.admin);
    // The restricted key its README asks for: meter events only, so reading PaymentIntents is refused (403), always.
    const noRead = sandbox.stripe.faults.inject({ action: "missingPermission", method: "GET", path: "/v1/payment_intents" });
    try {
      await start(queue, logs, { flow: meterEventFlow, event: metered } as unknown as Partial<BillingConsumerOptions>);
      const revoked = sandbox.stripe.faults.inject({ action: "revokedKey", method: "POST", path: "/v1/billing/meter_events", times: 1 });
      const at = Math.floor(sandbox.clock.now() / 1000) - 60;
      await sandbox.send(queue, { body: { usageId: `u-${customer.id}`, calls: 4, at }, messageId: "meter-paused-1" });
      await vi.waitFor(() => expect(revoked.hits).toBe(1), { timeout: 20_000 });
      await vi.waitFor(() => expect(logs.some((line) => line.startsWith("Stripe accepts the key again"))).toBe(true), { timeout: 10_000 });
      await vi.waitFor(async () => {
        const summary = await sandbox.admin.billing.meters.listEventSummaries(meter.id, { customer: customer.id, start_time: at - 60, end_time: at + 120 });
        expect(summary.data[0]?.aggregated_value).toBe(4);
      }, { timeout: 20_000 });
    } finally {
      noRead.remove();
    }
  });

  it("a key that may read PaymentIntents but not write them: one pause, ended only once it may write (the probe posts an empty create)", async () => {
    // Restricted keys set Read/Write/None per resource. A read as the probe passed for such a key: the consumer
    // resumed, met the refusal and paused again, at the probe's pace, for as long as the key stayed wrong.
    const queue = sandbox.queue();
    const logs: string[] = [];
    await start(queue, logs, {});
    const noWrite = sandbox.stripe.faults.inject({ action: "missingPermission", method: "POST", path: "/v1/payment_intents" });
    const event = await sandbox.event();
    try {
      await sandbox.send(queue, { body: event, messageId: "read-only-paused-1" });
      await vi.waitFor(() => expect(logs.filter((line) => line.startsWith("Stripe still refuses the key")).length).toBeGreaterThanOrEqual(3), { timeout: 20_000 });
      expect(logs.filter((line) => line.startsWith("configuration fault: Stripe refused the key"))).toHaveLength(1);
      expect(logs.some((line) => line.startsWith("Stripe accepts the key again"))).toBe(false);
      expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toEqual([]);
    } finally {
      noWrite.remove();
    }
    await vi.waitFor(() => expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).filter((pi) => pi.status === "succeeded")).toHaveLength(1), { timeout: 20_000 });
  });
});
