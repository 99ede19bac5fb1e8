// The billing consumer with a team's own events and another flow: a zod schema and a function from event to
// identity, spend and request, the invoice and meter-event flows on guard_records, the real SDKs against the sandbox.
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BillingEventDefinition } from "../../../runtime/flows/billing-event.js";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { invoiceFlow, type InvoiceRequest } from "../../../runtime/flows/invoice-flow.js";
import { meterEventFlow } from "../../../runtime/flows/meter-event-flow.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { meteredCustomer } from "../support/metered.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";

let sandbox: BillingSandbox;
let guard: Guard;
const running: RunningConsumer[] = [];
const logs: string[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  guard = await Guard.open({ pglite: sandbox.pglite, clock: sandbox.clock });
});
afterAll(async () => {
  await Promise.all(running.map((consumer) => consumer.close()));
  await guard?.close();
  await sandbox?.stop();
});

async function start<E, R>(queue: string, extra: Partial<BillingConsumerOptions<E, R>>): Promise<void> {
  // The shared options carry no flow, event or hook: only settings.
  const { flow: _flow, event: _event, hook: _hook, ...shared } = consumerOptionsFor(sandbox, queue);
  running.push(await startBillingConsumer<E, R>({ ...shared, pglite: sandbox.pglite, log: (line) => logs.push(line), ...extra }));
}

// A producer's usage record: its own id is the billing unit (not a customer-month), priced per day.
const usageRecord = z.strictObject({
  usageId: z.string().min(1),
  stripeCustomerId: z.string().startsWith("cus_"),
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  lines: z.array(z.strictObject({ amountCents: z.number().int().positive(), description: z.string() })).min(1),
});
type UsageRecord = z.infer<typeof usageRecord>;

const invoicedUsage: BillingEventDefinition<UsageRecord, InvoiceRequest> = {
  schema: usageRecord,
  toBilling: (event) => ({
    key: { usageId: event.usageId },
    spend: { period: event.day.slice(0, 7), currency: "eur", amount: event.lines.reduce((sum, line) => sum + line.amountCents, 0) },
    request: () => ({ customer: event.stripeCustomerId, currency: "eur", items: event.lines.map((l) => ({ amount: l.amountCents, description: l.description })) }),
  }),
};

describe("billing consumer with the team's events", () => {
  it("invoice flow: one paid invoice per usage record, redelivery and resubmission included; a bad event names its field", async () => {
    const queue = sandbox.queue();
    await start(queue, { flow: invoiceFlow, event: invoicedUsage, periodCaps: { eur: 100_000 } });
    const customer = await sandbox.admin.customers.create({ invoice_settings: { default_payment_method: "pm_card_visa" } });
    const event: UsageRecord = { usageId: `use-${customer.id}`, stripeCustomerId: customer.id, day: "2026-10-14", lines: [{ amountCents: 900, description: "calls" }, { amountCents: 100, description: "storage" }] };
    await sandbox.send(queue, { body: event, messageId: "inv-1" });
    await sandbox.send(queue, { body: event, messageId: "inv-1-again" });
    await waitFor("record done", async () => (await guard.get("billing", { usageId: event.usageId }))?.state === "done");
    await waitFor("both deliveries settled", () => logs.filter((l) => l.startsWith(`${event.usageId}: `) && l.includes("completed")).length === 2);
    expect(sandbox.stripe.ledger.invoices(customer.id).map((i) => [i.status, i.amount_paid, i.currency])).toEqual([["paid", 1_000, "eur"]]);
    expect(sandbox.stripe.ledger.invoiceItems(customer.id).every((item) => item.invoice !== null)).toBe(true);

    await sandbox.send(queue, { body: { ...event, day: "14/10/2026" }, messageId: "inv-bad" });
    await waitFor("bad event dead-lettered", () => logs.some((l) => l.includes("dead-lettered InvalidEvent") && l.includes("day:")));
  });

  it("meter-event flow: one event per usage id in the meter's summary, however often it is delivered", async () => {
    const queue = sandbox.queue();
    const { customer, meter, event: metered } = await meteredCustomer(sandbox.admin);
    await start(queue, { flow: meterEventFlow, event: metered });
    const at = Math.floor(sandbox.clock.now() / 1000) - 60;
    for (const [i, usageId] of ["a", "b", "a", "a"].entries()) {
      await sandbox.send(queue, { body: { usageId: `${usageId}-${customer.id}`, calls: usageId === "a" ? 3 : 4, at }, messageId: `m-${i}` });
    }
    await waitFor("four deliveries settled", () => logs.filter((l) => l.includes(customer.id) && l.includes(", completed")).length === 4);
    const summary = await sandbox.admin.billing.meters.listEventSummaries(meter.id, { customer: customer.id, start_time: at - 60, end_time: at + 120 });
    expect(summary.data[0]?.aggregated_value).toBe(7);
  });
});
