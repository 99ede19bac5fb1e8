// The consumer's telemetry read back through the real OpenTelemetry SDK (in-memory reader and span exporter) while
// the real consumer runs against the sandbox emulators: the counts must equal what happened at Stripe.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { Guard } from "../../../runtime/guard/guard.js";
import type { UsageEvent } from "../../../runtime/event/usage-event.js";
import { attributeNames, billingOutcomes, metricNames } from "../../../runtime/telemetry/metric-names.js";
import { inMemoryTelemetry, type InMemoryTelemetry } from "../../support/in-memory-telemetry.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";

let sandbox: BillingSandbox;
let guard: Guard;
let otel: InMemoryTelemetry;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  guard = await Guard.open({ pglite: sandbox.pglite, clock: sandbox.clock });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((consumer) => consumer.close()));
  await otel?.shutdown();
});
afterAll(async () => {
  await guard?.close();
  await sandbox?.stop();
});

async function start(queue: string, extra: Partial<BillingConsumerOptions> = {}): Promise<RunningConsumer> {
  const consumer = await startBillingConsumer({ ...consumerOptionsFor(sandbox, queue), pglite: sandbox.pglite, telemetry: otel.telemetry, ...extra });
  running.push(consumer);
  return consumer;
}

function drained(queue: string): boolean {
  const snapshot = sandbox.serviceBus.inspect(queue);
  return snapshot.active.length + snapshot.locked.length + snapshot.scheduled.length === 0;
}

async function settledAs(event: UsageEvent, state: string): Promise<void> {
  await waitFor(`record ${state}`, async () => (await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.state === state);
}

const outcome = (name: string) => otel.sum(metricNames.outcomes, { [attributeNames.outcome]: name });
const prevented = (by: string, source: string) =>
  otel.sum(metricNames.duplicatesPrevented, { [attributeNames.preventedBy]: by, [attributeNames.source]: source });

const producerSpan = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };
const diagnosticId = `00-${producerSpan.traceId}-${producerSpan.spanId}-01`;

describe("billing telemetry (real SDK, real consumer, sandbox emulators)", () => {
  it("counts charged and declined as Stripe did, the amount per currency, and bounded attributes only", async () => {
    otel = inMemoryTelemetry();
    const queue = sandbox.queue();
    const good = await Promise.all([1, 2, 3].map(() => sandbox.event({ billingPeriod: "2032-01" })));
    const euro = await sandbox.event({ billingPeriod: "2032-01", currency: "eur", amountCents: 990 });
    const declined = await Promise.all([1, 2].map(() => sandbox.event({ billingPeriod: "2032-01", paymentMethodId: "pm_card_chargeDeclined" })));
    await start(queue, { maxConcurrentCalls: 4, periodCapCents: 100_000 });
    for (const [i, event] of [...good, euro, ...declined].entries()) await sandbox.send(queue, { body: event, messageId: `t-${i}` });
    // The same billing again under a new message id: a producer's resend, stopped by the guard.
    await sandbox.send(queue, { body: good[0], messageId: "t-resend" });
    await sandbox.send(queue, { body: { ...good[1], amountCents: -1 }, messageId: "t-invalid" });
    for (const event of [...good, euro]) await settledAs(event, "done");
    for (const event of declined) await settledAs(event, "declined");
    await waitFor("queue drained", () => drained(queue));

    const charged = [...good, euro].filter((e) => sandbox.stripe.ledger.paymentIntents(e.stripeCustomerId).some((pi) => pi.status === "succeeded"));
    const declinedAtStripe = declined.filter((e) => sandbox.stripe.ledger.charges(e.stripeCustomerId).some((c) => c.status === "failed"));
    await expect.poll(() => outcome("charged")).toBe(charged.length);
    expect(charged).toHaveLength(4);
    expect(await outcome("declined")).toBe(declinedAtStripe.length);
    expect(declinedAtStripe).toHaveLength(2);
    // Counted when the delivery's process span ends, just after its settlement.
    await expect.poll(() => outcome("already_billed")).toBe(1);
    await expect.poll(() => outcome("invalid")).toBe(1);
    expect(await prevented("guard_billed", "other")).toBe(1);
    expect(await otel.sum(metricNames.chargedAmount, { [attributeNames.currency]: "usd" })).toBe(3 * 2_500);
    expect(await otel.sum(metricNames.chargedAmount, { [attributeNames.currency]: "eur" })).toBe(990);
    expect(await otel.sum(metricNames.deadLetters, { [attributeNames.deadLetterReason]: "InvalidEvent" })).toBe(1);
    // Each delivery's settlement on its process span: the invalid one dead-lettered, every other one completed.
    await expect.poll(() => processSpans(otel.spans()).length).toBe(8);
    const dispositions = processSpans(otel.spans()).map((span) => [span.attributes["messaging.message.id"], span.attributes["messaging.servicebus.disposition_status"]]);
    expect(dispositions.filter(([, disposition]) => disposition === "dead_letter")).toEqual([["t-invalid", "dead_letter"]]);
    expect(dispositions.filter(([, disposition]) => disposition === "complete")).toHaveLength(7);

    // Gauges from the guard's tables: the period's cap, what is charged against it, nothing pending.
    const period = { [attributeNames.billingPeriod]: "2032-01", [attributeNames.currency]: "usd" };
    expect(await otel.sum(metricNames.spendUsage, period)).toBe(3 * 2_500);
    expect(await otel.sum(metricNames.spendLimit, period)).toBe(100_000);
    expect(await otel.sum(metricNames.spendUtilization, period)).toBeCloseTo(0.075);
    expect(await otel.sum(metricNames.pendingBillings)).toBe(0);

    // Bounded: only the attribute keys we name, never a customer id, a Stripe id, a key or an amount.
    const points = await otel.points();
    const allowedKeys = new Set([...Object.values(attributeNames), "messaging.system", "messaging.operation.name", "messaging.destination.name", "error.type"]);
    const secrets = [...good, euro, ...declined].flatMap((e) => [e.customerId, e.stripeCustomerId, String(e.amountCents)]);
    for (const point of points) {
      for (const [key, value] of Object.entries(point.attributes)) {
        expect(allowedKeys, `${point.name} ${key}`).toContain(key);
        expect(secrets).not.toContain(String(value));
        expect(String(value)).not.toMatch(/^(cus_|pi_|acct-|billing-v)/);
      }
    }
    for (const point of points.filter((p) => p.name === metricNames.outcomes)) expect(billingOutcomes).toContain(point.attributes[attributeNames.outcome]);
  });

  it("a redelivery after a lost lock is a duplicate prevented by the guard, by source redelivery; the record counts once", async () => {
    otel = inMemoryTelemetry();
    const queue = sandbox.queue();
    const event = await sandbox.event({ billingPeriod: "2032-02" });
    let frozen!: () => void;
    const atComplete = new Promise<void>((resolve) => (frozen = resolve));
    // The first replica records the charge, then stalls before completing (a GC pause, a stuck socket): its lock lapses.
    await start(queue, {
      hook: async (step, e) => {
        if (step === "beforeComplete" && e.customerId === event.customerId) {
          frozen();
          await new Promise(() => {});
        }
      },
    });
    await sandbox.send(queue, { body: event, messageId: "t-redeliver", applicationProperties: { "Diagnostic-Id": diagnosticId } });
    await atComplete;
    await start(queue);
    expect(sandbox.serviceBus.faults.expireLock(queue)).toBe(1);
    await expect.poll(() => prevented("guard_billed", "redelivery"), { timeout: 20_000 }).toBe(1);
    await waitFor("queue drained", () => drained(queue));
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);
    expect(await outcome("charged")).toBe(1);
    await expect.poll(() => outcome("already_billed")).toBe(1);

    // The redelivery's process span links to the producer, like the first delivery's would.
    await expect.poll(() => processSpans(otel.spans()).length).toBe(1);
    const redelivered = processSpans(otel.spans()).find((span) => span.attributes["messaging.servicebus.message.delivery_count"] === 1);
    expect(redelivered?.links.map((link) => link.context.spanId)).toEqual([producerSpan.spanId]);
    expect(redelivered?.attributes[attributeNames.source]).toBe("redelivery");
  });

  it("Stripe commits then drops the connection: the retry's replay is counted by source retry, one charge, one charged", async () => {
    otel = inMemoryTelemetry();
    const queue = sandbox.queue();
    const event = await sandbox.event({ billingPeriod: "2032-03" });
    const fault = sandbox.stripe.faults.inject({
      method: "POST",
      path: "/v1/payment_intents",
      action: "commitThenDrop",
      times: 2,
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    await start(queue);
    await sandbox.send(queue, { body: event, messageId: "t-drop", applicationProperties: { "Diagnostic-Id": diagnosticId } });
    await settledAs(event, "done");
    await waitFor("queue drained", () => drained(queue));
    expect(fault.hits).toBe(2);
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);
    await expect.poll(() => outcome("charged")).toBe(1);
    await expect.poll(() => outcome("unknown")).toBe(1);
    expect(await otel.sum(metricNames.retriesScheduled, { [attributeNames.outcome]: "unknown" })).toBe(1);
    expect(await prevented("stripe_replayed", "retry")).toBe(1);
    expect(await otel.sum(metricNames.stripeRequestDuration)).toBe(2);

    // Two process spans, both linked to the producer; each has its claim, Stripe call and record as children, and its
    // settlement as an attribute.
    await expect.poll(() => processSpans(otel.spans()).length).toBe(2);
    const spans = otel.spans();
    const processes = processSpans(spans);
    expect(processes.map((span) => span.name)).toEqual([`process ${queue}`, `process ${queue}`]);
    for (const process of processes) {
      expect(process.kind).toBe(SpanKind.CONSUMER);
      expect(process.attributes).toMatchObject({ "messaging.system": "servicebus", "messaging.operation.name": "process", "messaging.destination.name": queue });
      expect(process.links.map((link) => link.context)).toMatchObject([producerSpan]);
    }
    const [first, retry] = processes;
    expect(first?.attributes[attributeNames.outcome]).toBe("unknown");
    // A lost answer is Stripe unreachable: the retry is a wait under the same attempt (runtime README, "Degraded dependencies").
    expect(retry?.attributes).toMatchObject({ [attributeNames.outcome]: "charged", [attributeNames.attempt]: 1, [attributeNames.source]: "retry" });
    expect(childNames(spans, first)).toEqual(["chargeguard.claim", `stripe payment_intents.create`, "chargeguard.release_lease", `schedule ${queue}`]);
    expect(childNames(spans, retry)).toEqual(["chargeguard.claim", `stripe payment_intents.create`, "chargeguard.mark_charged"]);
    // The first attempt is completed too, once its retry is scheduled.
    for (const process of processes) expect(process.attributes["messaging.servicebus.disposition_status"]).toBe("complete");
  });
});

function processSpans(spans: ReadableSpan[]): ReadableSpan[] {
  return spans.filter((span) => span.name.startsWith("process ")).sort((a, b) => hrtimeMs(a.startTime) - hrtimeMs(b.startTime));
}

function childNames(spans: ReadableSpan[], parent: ReadableSpan | undefined): string[] {
  return spans
    .filter((span) => span.parentSpanContext?.spanId === parent?.spanContext().spanId)
    .sort((a, b) => hrtimeMs(a.startTime) - hrtimeMs(b.startTime))
    .map((span) => span.name);
}

function hrtimeMs([seconds, nanos]: [number, number]): number {
  return seconds * 1e3 + nanos / 1e6;
}
