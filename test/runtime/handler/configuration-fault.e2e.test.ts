// A refused Stripe key pauses the consumer instead of dead-lettering the backlog; a queue that is not there stops it at
// start. The real SDKs against the sandbox emulators, the real guard on PGlite.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { ConsumerStartError } from "../../../runtime/consumer/servicebus-preflight.js";
import { attributeNames, metricNames } from "../../../runtime/telemetry/metric-names.js";
import { inMemoryTelemetry } from "../../support/in-memory-telemetry.js";
import { consumerOptionsFor, startBillingSandbox, type BillingSandbox } from "../support/billing-sandbox.js";

let sandbox: BillingSandbox;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
});
afterAll(async () => {
  await Promise.all(running.map((consumer) => consumer.close()));
  await sandbox?.stop();
});

async function start(queue: string, extra: Partial<BillingConsumerOptions> = {}): Promise<RunningConsumer> {
  const consumer = await startBillingConsumer({ ...consumerOptionsFor(sandbox, queue), pglite: sandbox.pglite, ...extra });
  running.push(consumer);
  return consumer;
}

describe("a Stripe key that Stripe refuses", () => {
  it("pauses intake, leaves every message in the queue, reports once, and resumes when the key works again", async () => {
    const queue = sandbox.queue();
    const events = await Promise.all(Array.from({ length: 6 }, () => sandbox.event()));
    const revoked = sandbox.stripe.faults.inject({ action: "revokedKey" });
    const logs: string[] = [];
    const faults: string[] = [];
    const otel = inMemoryTelemetry();
    await start(queue, {
      telemetry: otel.telemetry,
      log: (line) => logs.push(line),
      onConfigurationFault: (detail) => faults.push(detail),
      configurationFaultProbe: { firstProbeDelayMs: 400, maxProbeDelayMs: 800 },
      maxConcurrentCalls: 2,
    });
    for (const [index, event] of events.entries()) await sandbox.send(queue, { body: event, messageId: `revoked-${index}` });

    await vi.waitFor(() => expect(faults).toHaveLength(1), { timeout: 20_000 });
    expect(faults[0]).toMatch(/401/);
    // Probes keep being refused: still paused, nothing dead-lettered, nothing charged, the messages all still queued.
    await vi.waitFor(() => expect(logs.filter((line) => line.startsWith("Stripe still refuses the key")).length).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
    const snapshot = sandbox.serviceBus.inspect(queue);
    expect(snapshot.deadLettered).toEqual([]);
    // Each message met is kept as a scheduled copy (a wait), the original completed.
    expect(snapshot.active.length + snapshot.locked.length + snapshot.scheduled.length).toBe(events.length);
    expect(events.flatMap((event) => sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId))).toEqual([]);
    expect(logs.some((line) => line.includes("Stopped taking messages; they stay in the queue"))).toBe(true);
    // Each message refused meanwhile says what happened to it: paused and left on the queue, never "dead-lettered".
    const refused = logs.filter((line) => line.includes("StripeConfigurationError"));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const line of refused) expect(line).toMatch(/: paused on StripeConfigurationError, message left on the queue \(not dead-lettered\): /);
    expect(logs.filter((line) => line.includes("dead-lettered StripeConfigurationError"))).toEqual([]);
    // Telemetry agrees: configuration outcomes, no dead letters.
    await expect.poll(() => otel.sum(metricNames.outcomes, { [attributeNames.outcome]: "configuration" })).toBeGreaterThanOrEqual(1);
    expect(await otel.sum(metricNames.deadLetters)).toBe(0);
    expect(faults).toHaveLength(1);

    revoked.remove();
    await vi.waitFor(
      () => {
        for (const event of events) expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).filter((pi) => pi.status === "succeeded")).toHaveLength(1);
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(logs).toContain("Stripe accepts the key again: taking messages");
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toEqual([]);
    await otel.shutdown();
  });
});

describe("a pause spends no delivery", () => {
  it("a refusal the probe does not meet: paused again and again, no message delivered twice or dead-lettered, each billed once when it ends", async () => {
    // Every billing's create is refused 403 while the probe (an empty create, no amount) passes: the consumer resumes,
    // meets the refusal, pauses, and again, at the probe's pace. With each message it met abandoned, the broker counted
    // a delivery per pause and dead-lettered it MaxDeliveryCountExceeded at the tenth (the queue's limit here), within
    // a second. (First seen with a key that may read but not write, when the probe was a read.)
    const queue = sandbox.queue();
    const events = await Promise.all(Array.from({ length: 2 }, () => sandbox.event()));
    const refused = sandbox.stripe.faults.inject({ action: "missingPermission", method: "POST", path: "/v1/payment_intents", when: (r) => r.params.amount !== undefined });
    const logs: string[] = [];
    const options = { log: (line: string) => logs.push(line), configurationFaultProbe: { firstProbeDelayMs: 100, maxProbeDelayMs: 200 }, maxConcurrentCalls: 2 };
    await Promise.all([start(queue, options), start(queue, options)]);
    for (const [index, event] of events.entries()) await sandbox.send(queue, { body: event, messageId: `read-only-${index}` });

    const pauses = () => logs.filter((line) => line.startsWith("configuration fault: Stripe refused the key")).length;
    // Twelve pauses: more deliveries than the queue allows one message, were each pause to spend one.
    await vi.waitFor(() => expect(pauses() >= 12 || sandbox.serviceBus.inspect(queue).deadLettered.length > 0).toBe(true), { timeout: 60_000, interval: 100 });
    const snapshot = sandbox.serviceBus.inspect(queue);
    expect(snapshot.deadLettered).toEqual([]);
    // Every message the pauses met went back as a scheduled copy; none was handed out more than once.
    for (const message of [...snapshot.active, ...snapshot.locked, ...snapshot.scheduled]) expect(message.deliveryCount).toBeLessThanOrEqual(1);
    expect(events.flatMap((event) => sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId))).toEqual([]);

    refused.remove();
    await vi.waitFor(
      () => {
        for (const event of events) expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).filter((pi) => pi.status === "succeeded")).toHaveLength(1);
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toEqual([]);
  }, 120_000);
});

describe("a consumer started on a queue it cannot use", () => {
  it("refuses a queue that does not exist, naming the setting", async () => {
    const error = await start("no-such-queue").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConsumerStartError);
    expect((error as Error).message).toMatch(/^queue "no-such-queue" does not exist on 127\.0\.0\.1:\d+: check SERVICEBUS_QUEUE/);
  });

  it("refuses a namespace that refuses connections", async () => {
    const options = consumerOptionsFor(sandbox, sandbox.queue());
    const connectionString = options.serviceBus.connectionString.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:9");
    const error = await start(options.serviceBus.queueName, { serviceBus: { ...options.serviceBus, connectionString } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConsumerStartError);
    expect((error as Error).message).toMatch(/^cannot reach Service Bus at 127\.0\.0\.1:9 \(.*ECONNREFUSED/);
  });
});
