// Issue 41, defect 6: the vault counted every currency against one cap. USD 4,000 billed, then EUR 4,000 (its own cap
// untouched) was refused SpendCapExceeded against "8000, over the cap of 5500 cents". The guard caps per (period,
// currency); now the vault does too: each billing asks the key of its (period, currency), whose budget is its own.
// The consumer end to end, the real SDKs through the Keybrake emulator to the Stripe emulator.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningConsumer } from "../../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer } from "../../../../runtime/consumer/consumer.js";
import { KeybrakeKeyProvider } from "../../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../../sandbox/keybrake/index.js";
import { consumerOptionsFor, startBillingSandbox, type BillingSandbox } from "../../support/billing-sandbox.js";

let sandbox: BillingSandbox;
let keybrake: KeybrakeEmulator;
let consumer: RunningConsumer | undefined;

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: sandbox.stripe.apiBase, clock: sandbox.clock });
});
afterAll(async () => {
  await consumer?.close();
  await keybrake?.stop();
  await sandbox?.stop();
});

describe("the vault caps per (period, currency), like the guard (issue 41, defect 6)", () => {
  it("USD 4,000 then EUR 4,000 under a 5,000 cap per currency: both billed, each within its own vault cap", async () => {
    const queue = sandbox.queue();
    const logs: string[] = [];
    const keyProvider = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock: sandbox.clock });
    consumer = await startBillingConsumer({ ...consumerOptionsFor(sandbox, queue), pglite: sandbox.pglite, keyProvider, periodCapCents: 5_000, log: (line) => logs.push(line) });
    const dollars = await sandbox.event({ amountCents: 4_000, currency: "usd" });
    const euros = await sandbox.event({ amountCents: 4_000, currency: "eur" });
    await sandbox.send(queue, { body: dollars, messageId: "usd-4000" });
    const paid = (event: typeof dollars) => sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).filter((pi) => pi.status === "succeeded");
    await vi.waitFor(() => expect(paid(dollars)).toHaveLength(1), { timeout: 20_000 });
    await sandbox.send(queue, { body: euros, messageId: "eur-4000" });
    await vi.waitFor(() => expect(paid(euros)).toHaveLength(1), { timeout: 20_000 });
    expect(paid(euros)[0]).toMatchObject({ amount: 4_000, currency: "eur" });
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toEqual([]);
    expect(keybrake.refusals().vault_spend_cap_exceeded ?? 0).toBe(0);
  });
});
