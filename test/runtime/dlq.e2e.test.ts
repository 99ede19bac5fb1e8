// Dead-letter tools against the Service Bus emulator with the real SDK, and the consumer that meets the resubmission.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningConsumer } from "../../runtime/consumer-contract.js";
import { startBillingConsumer } from "../../runtime/consumer.js";
import { peekDeadLetters, resubmitDeadLetters } from "../../runtime/dlq.js";
import { BillingGuard } from "../../runtime/guard/billing-guard.js";
import { startBillingSandbox, waitFor, type BillingSandbox } from "./support/billing-sandbox.js";

let sandbox: BillingSandbox;
let guard: BillingGuard;
const running: RunningConsumer[] = [];
const logs: string[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  guard = await BillingGuard.open({ pglite: sandbox.pglite, clock: sandbox.clock });
});
afterAll(async () => {
  await Promise.all(running.map((consumer) => consumer.close()));
  await guard?.close();
  await sandbox?.stop();
});

async function deadLetter(queue: string, reason: string): Promise<void> {
  const receiver = sandbox.client.createReceiver(queue);
  const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
  if (!message) throw new Error("nothing to dead-letter");
  await receiver.deadLetterMessage(message, { deadLetterReason: reason, deadLetterErrorDescription: `${reason} for the test` });
  await receiver.close();
}

describe("DLQ tools", () => {
  it("peeks without taking, and resubmits keeping messageId, body and properties (dead-letter fields dropped)", async () => {
    const queue = sandbox.queue(2_000, { duplicateDetection: false });
    await sandbox.send(queue, {
      body: { hello: "world" },
      messageId: "m-keep",
      contentType: "application/json",
      correlationId: "corr-1",
      applicationProperties: { tenant: "t1", "chargeguard-attempt": 5, "chargeguard-chain": "old" },
    });
    await deadLetter(queue, "Poison");
    const connectionString = sandbox.serviceBus.connectionString;
    const peeked = await peekDeadLetters({ connectionString, queue });
    expect(peeked).toEqual([expect.objectContaining({ messageId: "m-keep", deadLetterReason: "Poison", body: { hello: "world" } })]);
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toHaveLength(1);

    const dry = await resubmitDeadLetters({ connectionString, queue, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, moved: [{ messageId: "m-keep" }] });
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toHaveLength(1);

    const report = await resubmitDeadLetters({ connectionString, queue, maxWaitTimeInMs: 500 });
    expect(report).toMatchObject({ dryRun: false, moved: [{ messageId: "m-keep", sentAs: "m-keep", deadLetterReason: "Poison" }] });
    expect(report.failure).toBeUndefined();
    const snapshot = sandbox.serviceBus.inspect(queue);
    expect(snapshot.deadLettered).toHaveLength(0);
    const receiver = sandbox.client.createReceiver(queue);
    const [back] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    expect(back).toMatchObject({ messageId: "m-keep", body: { hello: "world" }, contentType: "application/json", correlationId: "corr-1" });
    expect(back?.applicationProperties).toEqual({ tenant: "t1", "chargeguard-resubmitted-from": `${queue}/$DeadLetterQueue#${peeked[0]?.sequenceNumber}` });
    if (back) await receiver.completeMessage(back);
    await receiver.close();
  });

  it("derives a deterministic new id on request (a kept id inside a duplicate-detection window would be dropped)", async () => {
    const queue = sandbox.queue();
    await sandbox.send(queue, { body: { n: 1 }, messageId: "m-dedupe" });
    await deadLetter(queue, "Poison");
    const connectionString = sandbox.serviceBus.connectionString;
    const report = await resubmitDeadLetters({ connectionString, queue, messageId: "derive", maxWaitTimeInMs: 500 });
    const sentAs = report.moved[0]?.sentAs;
    expect(sentAs).toMatch(/^m-dedupe:resubmit:\d+$/);
    await waitFor("resubmission enqueued", () => sandbox.serviceBus.inspect(queue).active.some((m) => m.messageId === sentAs));
  });

  it("an event dead-lettered after its retries ran out is resubmitted and billed once, by Stripe's replay", async () => {
    const queue = sandbox.queue(2_000, { duplicateDetection: false });
    const event = await sandbox.event();
    // Every answer is lost after Stripe committed: the consumer cannot learn the outcome and gives up.
    const fault = sandbox.stripe.faults.inject({
      method: "POST",
      path: "/v1/payment_intents",
      action: "commitThenDrop",
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    running.push(
      await startBillingConsumer({
        serviceBus: { connectionString: sandbox.serviceBus.connectionString, queueName: queue },
        stripe: { apiKey: "rk_test_sandbox", apiBase: sandbox.stripe.apiBase, timeoutMs: 2_000, maxNetworkRetries: 0 },
        pglite: sandbox.pglite,
        clock: sandbox.clock,
        leaseMs: 3_000,
        maxAttempts: 2,
        retryPolicy: { baseDelayMs: 100, maxDelayMs: 200 },
        log: (line) => logs.push(line),
      }),
    );
    await sandbox.send(queue, { body: event, messageId: "m-exhausted" });
    const [dead] = await waitFor("dead-lettered", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length === 1 ? letters : undefined;
    });
    expect(dead).toMatchObject({ messageId: "m-exhausted:retry:2", deadLetterReason: "RetryAttemptsExhausted" });
    expect(dead?.applicationProperties["chargeguard-attempt"]).toBe(2);
    expect((await guard.get(event.customerId, event.billingPeriod))?.state).toBe("pending");
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);

    fault.remove();
    const report = await resubmitDeadLetters({ connectionString: sandbox.serviceBus.connectionString, queue, maxWaitTimeInMs: 500 });
    expect(report.moved.map((m) => m.sentAs)).toEqual(["m-exhausted:retry:2"]);
    await waitFor("record completed", async () => (await guard.get(event.customerId, event.billingPeriod))?.state === "completed");
    const intents = sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId);
    expect(intents).toHaveLength(1);
    expect(intents[0]?.status).toBe("succeeded");
    expect((await guard.get(event.customerId, event.billingPeriod))?.paymentIntentId).toBe(intents[0]?.id);
  });
});
