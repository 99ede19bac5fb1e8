// The Stripe child spans of a delivery are named for the calls its flow makes, and the delivery's outcome is counted
// whichever store the flow records in (billing_records or guard_records), read back through the real OpenTelemetry
// SDK (in-memory exporter and reader) while the real consumer runs each flow against the sandbox.
import { z } from "zod";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SpanKind } from "@opentelemetry/api";
import type { BillingEventDefinition } from "../../../runtime/flows/billing-event.js";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { chargeFlow, type ChargeRequest } from "../../../runtime/flows/charge-flow.js";
import { invoiceFlow, type InvoiceRequest } from "../../../runtime/flows/invoice-flow.js";
import { meterEventFlow, type MeterEventRequest } from "../../../runtime/flows/meter-event-flow.js";
import { attributeNames, metricNames } from "../../../runtime/telemetry/metric-names.js";
import { inMemoryTelemetry, type InMemoryTelemetry } from "../../support/in-memory-telemetry.js";
import { consumerOptionsFor, startBillingSandbox, type BillingSandbox } from "../support/billing-sandbox.js";

let sandbox: BillingSandbox;
let otel: InMemoryTelemetry;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((consumer) => consumer.close()));
  await otel?.shutdown();
});
afterAll(async () => {
  await sandbox?.stop();
});

/** Runs one message through a consumer of `flow` and answers the names of its process span's Stripe children. */
async function stripeSpansOf<E, R>(body: unknown, extra: Partial<BillingConsumerOptions<E, R>> = {}): Promise<string[]> {
  otel = inMemoryTelemetry();
  const queue = sandbox.queue();
  const { flow: _flow, event: _event, hook: _hook, ...shared } = consumerOptionsFor(sandbox, queue);
  running.push(await startBillingConsumer<E, R>({ ...shared, pglite: sandbox.pglite, telemetry: otel.telemetry, periodCaps: { usd: 1_000_000, eur: 1_000_000 }, ...extra }));
  await sandbox.send(queue, { body, messageId: `span-${queue}` });
  await expect.poll(() => otel.spans().some((span) => span.name === `process ${queue}`), { timeout: 20_000 }).toBe(true);
  const process = otel.spans().find((span) => span.name === `process ${queue}`);
  const children = otel
    .spans()
    .filter((span) => span.parentSpanContext?.spanId === process?.spanContext().spanId && span.name.startsWith("stripe "))
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  for (const span of children) {
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(`stripe ${String(span.attributes[attributeNames.stripeOperation])}`).toBe(span.name);
  }
  return children.map((span) => span.name);
}

/** The billings the consumer's telemetry counted with `outcome`. */
const outcomes = (outcome: string) => otel.sum(metricNames.outcomes, { [attributeNames.outcome]: outcome });

/** The Stripe request durations recorded for one operation: one per call. */
const callsTimed = (operation: string) => otel.sum(metricNames.stripeRequestDuration, { [attributeNames.stripeOperation]: operation });

const usage = z.strictObject({ usageId: z.string().min(1), customer: z.string().startsWith("cus_"), amounts: z.array(z.number().int().positive()).min(1) });
type Usage = z.infer<typeof usage>;

describe("each flow's Stripe span is named for the call it makes, and its outcome counted", () => {
  it("payment-intent: payment_intents.create", async () => {
    const event = await sandbox.event({ billingPeriod: "2033-01" });
    expect(await stripeSpansOf(event)).toEqual(["stripe payment_intents.create"]);
    expect(await callsTimed("payment_intents.create")).toBe(1);
    expect(await outcomes("charged")).toBe(1);
    expect(await outcomes("unknown")).toBe(0);
  });

  it("charge: charges.create (never payment_intents.create)", async () => {
    const customer = await sandbox.admin.customers.create({ source: "tok_visa" });
    const charged: BillingEventDefinition<Usage, ChargeRequest> = {
      schema: usage,
      toBilling: (event) => ({
        key: { usageId: event.usageId },
        spend: { period: "2033-01", currency: "usd", amount: event.amounts[0] ?? 0 },
        request: (key) => ({ amount: event.amounts[0] ?? 0, currency: "usd", customer: event.customer, metadata: { idempotency_key: key } }),
      }),
    };
    const names = await stripeSpansOf({ usageId: `c-${customer.id}`, customer: customer.id, amounts: [700] }, { flow: chargeFlow, event: charged });
    expect(names).toEqual(["stripe charges.create"]);
    expect(await callsTimed("charges.create")).toBe(1);
    expect(await callsTimed("payment_intents.create")).toBe(0);
    expect(sandbox.stripe.ledger.charges(customer.id).map((c) => c.status)).toEqual(["succeeded"]);
    expect(await outcomes("charged")).toBe(1);
    expect(await outcomes("unknown")).toBe(0);
    expect(await otel.sum(metricNames.chargedAmount, { [attributeNames.currency]: "usd" })).toBe(700);
  });

  it("invoice: invoices.create, invoiceitems.create per item, invoices.finalize_invoice, invoices.pay", async () => {
    const customer = await sandbox.admin.customers.create({ invoice_settings: { default_payment_method: "pm_card_visa" } });
    const invoiced: BillingEventDefinition<Usage, InvoiceRequest> = {
      schema: usage,
      toBilling: (event) => ({
        key: { usageId: event.usageId },
        spend: { period: "2033-01", currency: "eur", amount: event.amounts.reduce((sum, amount) => sum + amount, 0) },
        request: () => ({ customer: event.customer, currency: "eur", items: event.amounts.map((amount) => ({ amount })) }),
      }),
    };
    const names = await stripeSpansOf({ usageId: `i-${customer.id}`, customer: customer.id, amounts: [900, 100] }, { flow: invoiceFlow, event: invoiced });
    expect(names).toEqual([
      "stripe invoices.create",
      "stripe invoiceitems.create",
      "stripe invoiceitems.create",
      "stripe invoices.finalize_invoice",
      "stripe invoices.pay",
    ]);
    expect(await callsTimed("invoiceitems.create")).toBe(2);
    expect(sandbox.stripe.ledger.invoices(customer.id).map((i) => i.status)).toEqual(["paid"]);
    expect(await outcomes("charged")).toBe(1);
    expect(await outcomes("unknown")).toBe(0);
    expect(await otel.sum(metricNames.chargedAmount, { [attributeNames.currency]: "eur" })).toBe(1_000);
  });

  it("meter-event: billing.meter_events.create", async () => {
    const customer = await sandbox.admin.customers.create({ name: "metered" });
    const meter = await sandbox.admin.billing.meters.create({ display_name: "calls", event_name: `calls_${customer.id}`, default_aggregation: { formula: "sum" } });
    const at = Math.floor(sandbox.clock.now() / 1000) - 60;
    const metered: BillingEventDefinition<Usage, MeterEventRequest> = {
      schema: usage,
      toBilling: (event) => ({
        key: { usageId: event.usageId },
        request: () => ({ eventName: meter.event_name, stripeCustomerId: event.customer, value: event.amounts[0] ?? 0, timestamp: at }),
      }),
    };
    const names = await stripeSpansOf({ usageId: `m-${customer.id}`, customer: customer.id, amounts: [3] }, { flow: meterEventFlow, event: metered });
    expect(names).toEqual(["stripe billing.meter_events.create"]);
    expect(await callsTimed("billing.meter_events.create")).toBe(1);
    expect(await outcomes("charged")).toBe(1);
    expect(await outcomes("unknown")).toBe(0);
  });
});
