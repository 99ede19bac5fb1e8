// Dead-letter tools against the Service Bus emulator with the real SDK, and the consumer that meets the resubmission.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { peekDeadLetters, resubmission, resubmitDeadLetters, resubmitIdReason } from "../../../runtime/operator/dlq.js";
import { operatorQueueRights } from "../../../tuning/index.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { consumerRule, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";

let sandbox: BillingSandbox;
let guard: Guard;
const running: RunningConsumer[] = [];
const logs: string[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox({ authorizationRules: { operator: { rights: operatorQueueRights.sasRights } } });
  guard = await Guard.open({ pglite: sandbox.pglite, clock: sandbox.clock });
});
afterAll(async () => {
  await Promise.all(running.map((consumer) => consumer.close()));
  await guard?.close();
  await sandbox?.stop();
});

async function deadLetter(queue: string, reason: string, count = 1): Promise<void> {
  const receiver = sandbox.client.createReceiver(queue);
  let done = 0;
  while (done < count) {
    const messages = await receiver.receiveMessages(count - done, { maxWaitTimeInMs: 5_000 });
    if (messages.length === 0) throw new Error("nothing to dead-letter");
    for (const message of messages) {
      await receiver.deadLetterMessage(message, { deadLetterReason: reason, deadLetterErrorDescription: `${reason} for the test` });
      done++;
    }
  }
  await receiver.close();
}

/** The default consumer on `queue`, against the sandbox's Stripe, closed after the suite. */
async function startConsumer(queue: string, extra: Partial<BillingConsumerOptions> = {}): Promise<void> {
  running.push(
    await startBillingConsumer({
      serviceBus: { connectionString: sandbox.serviceBus.connectionStringFor(consumerRule), queueName: queue },
      stripe: { apiKey: "rk_test_sandbox", apiBase: sandbox.stripe.apiBase, timeoutMs: 2_000, maxNetworkRetries: 0 },
      pglite: sandbox.pglite,
      clock: sandbox.clock,
      log: (line) => logs.push(line),
      ...extra,
    }),
  );
}

/** The operator's connection: exactly what BillingQueue grants operators (Listen + Send), never Manage. */
const operator = () => sandbox.serviceBus.connectionStringFor("operator");

describe("DLQ tools", () => {
  it("peeks without taking, and resubmits as a new message under a derived id, keeping body and properties (dead-letter fields dropped)", async () => {
    const queue = sandbox.queue(2_000, { duplicateDetection: false });
    await sandbox.send(queue, {
      body: { hello: "world" },
      messageId: "m-keep",
      contentType: "application/json",
      correlationId: "corr-1",
      applicationProperties: { tenant: "t1", "chargeguard-attempt": 5, "chargeguard-chain": "old" },
    });
    await deadLetter(queue, "Poison");
    const connectionString = operator();
    const peeked = await peekDeadLetters({ connectionString, queue });
    expect(peeked).toEqual([expect.objectContaining({ messageId: "m-keep", deadLetterReason: "Poison", body: { hello: "world" } })]);
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toHaveLength(1);
    const sentAs = `m-keep:resubmit:${peeked[0]?.sequenceNumber}`;

    const dry = await resubmitDeadLetters({ connectionString, queue, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, skipped: 0, moved: [{ messageId: "m-keep", sentAs, why: resubmitIdReason }] });
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toHaveLength(1);

    const report = await resubmitDeadLetters({ connectionString, queue, maxWaitTimeInMs: 500 });
    expect(report).toMatchObject({ dryRun: false, skipped: 0, moved: [{ messageId: "m-keep", sentAs, deadLetterReason: "Poison" }] });
    expect(report.failure).toBeUndefined();
    const snapshot = sandbox.serviceBus.inspect(queue);
    expect(snapshot.deadLettered).toHaveLength(0);
    const receiver = sandbox.client.createReceiver(queue);
    const [back] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    expect(back).toMatchObject({ messageId: sentAs, body: { hello: "world" }, contentType: "application/json", correlationId: "corr-1" });
    expect(back?.applicationProperties).toEqual({ tenant: "t1", "chargeguard-resubmitted-from": `${queue}/$DeadLetterQueue#${peeked[0]?.sequenceNumber}` });
    if (back) await receiver.completeMessage(back);
    await receiver.close();
  });

  it("with duplicate detection on, re-sending the kept id (the old default) loses both events; the default resubmit loses none", async () => {
    const twoDeadLetters = async () => {
      const queue = sandbox.queue();
      await sandbox.send(queue, { body: { n: 1 }, messageId: "evt-1" });
      await sandbox.send(queue, { body: { n: 2 }, messageId: "evt-2" });
      await deadLetter(queue, "MaxDeliveryCountExceeded", 2);
      return queue;
    };
    // The old behaviour, step by step: send a copy with the kept messageId, then complete the dead-letter copy.
    const old = await twoDeadLetters();
    const receiver = sandbox.client.createReceiver(old, { subQueueType: "deadLetter" });
    const sender = sandbox.client.createSender(old);
    for (const message of await receiver.receiveMessages(2, { maxWaitTimeInMs: 5_000 })) {
      await sender.sendMessages({ body: message.body, messageId: message.messageId });
      await receiver.completeMessage(message);
    }
    await receiver.close();
    await sender.close();
    expect(sandbox.serviceBus.counts(old)).toMatchObject({ active: 0, scheduled: 0, deadLettered: 0 });

    const queue = await twoDeadLetters();
    const report = await resubmitDeadLetters({ connectionString: operator(), queue, maxWaitTimeInMs: 500 });
    expect(report.moved.map((m) => m.sentAs)).toEqual([expect.stringMatching(/^evt-1:resubmit:\d+$/), expect.stringMatching(/^evt-2:resubmit:\d+$/)]);
    const snapshot = sandbox.serviceBus.inspect(queue);
    expect(snapshot.deadLettered).toEqual([]);
    expect(snapshot.active.map((m) => [m.messageId, m.body])).toEqual(report.moved.map((m) => [m.sentAs, m.body]));
  });

  it("a re-run after a crash between send and complete sends the same id, which the window drops: one copy", async () => {
    const queue = sandbox.queue();
    await sandbox.send(queue, { body: { n: 1 }, messageId: "evt-crash" });
    await deadLetter(queue, "Poison");
    const receiver = sandbox.client.createReceiver(queue, { subQueueType: "deadLetter" });
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    if (!message) throw new Error("no dead letter");
    await sandbox.client.createSender(queue).sendMessages(resubmission(message, queue));
    await receiver.close(); // "crashed": the dead-letter copy was never completed; it comes back when its lock lapses

    const report = await resubmitDeadLetters({ connectionString: operator(), queue, maxWaitTimeInMs: 5_000 });
    expect(report.moved.map((m) => m.sentAs)).toEqual([resubmission(message, queue).messageId]);
    const snapshot = sandbox.serviceBus.inspect(queue);
    expect(snapshot.deadLettered).toEqual([]);
    expect(snapshot.active.map((m) => m.messageId)).toEqual([resubmission(message, queue).messageId]);
  });

  it("filters by reason, messageId and enqueue time, leaving the rest in the dead-letter queue", async () => {
    const queue = sandbox.queue();
    const before = new Date(Date.now() - 1_000);
    await sandbox.send(queue, { body: { n: 1 }, messageId: "poison-1" });
    await deadLetter(queue, "InvalidEvent");
    await sandbox.send(queue, { body: { n: 2 }, messageId: "good-1" });
    await sandbox.send(queue, { body: { n: 3 }, messageId: "good-2" });
    await deadLetter(queue, "RetryAttemptsExhausted", 2);
    const connectionString = operator();

    const byReason = await resubmitDeadLetters({ connectionString, queue, maxWaitTimeInMs: 500, filter: { reasons: ["RetryAttemptsExhausted"], messageIds: ["good-2"] } });
    expect(byReason).toMatchObject({ skipped: 2, moved: [{ messageId: "good-2" }] });
    expect(sandbox.serviceBus.inspect(queue).deadLettered.map((m) => m.messageId).sort()).toEqual(["good-1", "poison-1"]);

    expect(await peekDeadLetters({ connectionString, queue, filter: { since: new Date(Date.now() + 60_000) } })).toEqual([]);
    const dry = await resubmitDeadLetters({ connectionString, queue, dryRun: true, filter: { since: before, reasons: ["RetryAttemptsExhausted"] } });
    expect(dry).toMatchObject({ skipped: 1, moved: [{ messageId: "good-1" }] });
    const rest = await resubmitDeadLetters({ connectionString, queue, maxWaitTimeInMs: 500, filter: { reasons: ["RetryAttemptsExhausted"] } });
    expect(rest).toMatchObject({ skipped: 1, moved: [{ messageId: "good-1" }] });
    expect(sandbox.serviceBus.inspect(queue).deadLettered.map((m) => m.messageId)).toEqual(["poison-1"]);
  });

  it("an event dead-lettered at its deadline (every answer lost) is resubmitted and billed once, by Stripe's replay", async () => {
    const queue = sandbox.queue(2_000, { duplicateDetection: false });
    const event = await sandbox.event();
    // Every answer is lost after Stripe committed: the consumer cannot learn the outcome; a lost answer is Stripe
    // unreachable, a wait, so it gives up at the event's deadline (its time-to-live), not after a count.
    const fault = sandbox.stripe.faults.inject({
      method: "POST",
      path: "/v1/payment_intents",
      action: "commitThenDrop",
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    await startConsumer(queue, { leaseMs: 3_000, maxAttempts: 2, retryPolicy: { baseDelayMs: 100, maxDelayMs: 200 } });
    await sandbox.send(queue, { body: event, messageId: "m-exhausted", timeToLive: 3_000 });
    const [dead] = await waitFor("dead-lettered", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length === 1 ? letters : undefined;
    });
    expect(dead).toMatchObject({ deadLetterReason: "EventDeadlineExceeded" });
    expect(dead?.messageId).toMatch(/^m-exhausted:retry:1:wait:\d+$/);
    expect(dead?.applicationProperties["chargeguard-attempt"]).toBe(1);
    expect((await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.state).toBe("pending");
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);

    fault.remove();
    const report = await resubmitDeadLetters({ connectionString: operator(), queue, maxWaitTimeInMs: 500 });
    expect(report.moved.map((m) => m.sentAs)).toEqual([expect.stringMatching(/^m-exhausted:retry:1:wait:\d+:resubmit:\d+$/)]);
    await waitFor("record done", async () => (await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.state === "done");
    const intents = sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId);
    expect(intents).toHaveLength(1);
    expect(intents[0]?.status).toBe("succeeded");
    expect((await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.objectId).toBe(intents[0]?.id);
  });

  it("with the consumer running, a resubmission never reads back what it sent, and refuses BillingRecordMismatch unless told", async () => {
    const queue = sandbox.queue(2_000, { duplicateDetection: false });
    await startConsumer(queue);
    const event = await sandbox.event();
    await sandbox.send(queue, { body: event, messageId: "m-first" });
    // The same billing identity (customer and period) with another amount: the consumer refuses it, every time.
    await sandbox.send(queue, { body: { ...event, amountCents: event.amountCents + 100 }, messageId: "m-other-amount" });
    await waitFor("dead-lettered", () => sandbox.serviceBus.inspect(queue).deadLettered.length === 1);
    const connectionString = operator();

    const dry = await resubmitDeadLetters({ connectionString, queue, dryRun: true });
    expect(dry).toMatchObject({ moved: [], refused: [{ messageId: "m-other-amount", deadLetterReason: "BillingRecordMismatch" }], byReason: { BillingRecordMismatch: { moved: 0, refused: 1 } } });
    // The dead letter says which fields differ from the billing on record, and what to do.
    expect(dry.refused[0]?.deadLetterErrorDescription).toMatch(/other parameters \(payload\.amount 2500 -> 2600; spend\.amount 2500 -> 2600; also idempotencyKey, payload\.metadata\).*give it its own identity/);
    const refused = await resubmitDeadLetters({ connectionString, queue, maxWaitTimeInMs: 500 });
    expect(refused).toMatchObject({ moved: [], refused: [{ messageId: "m-other-amount", why: expect.stringMatching(/already billed with other parameters/) }] });
    expect(sandbox.serviceBus.inspect(queue).deadLettered.map((m) => m.messageId)).toEqual(["m-other-amount"]);

    // Told to resend it: sent once; the consumer dead-letters the copy again at once, and this run leaves it (the
    // old loop read it back and resent it until --max: 20 sends here).
    const forced = await resubmitDeadLetters({ connectionString, queue, maxWaitTimeInMs: 1_500, max: 20, resendPermanent: true });
    expect(forced.moved.map((m) => m.sentAs)).toEqual([expect.stringMatching(/^m-other-amount:resubmit:\d+$/)]);
    expect(forced.byReason).toEqual({ BillingRecordMismatch: { moved: 1, refused: 0 } });
    await waitFor("dead-lettered again", () => sandbox.serviceBus.inspect(queue).deadLettered.length === 1);
    expect(sandbox.serviceBus.inspect(queue).deadLettered.map((m) => m.messageId)).toEqual([forced.moved[0]?.sentAs]);
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);
  });
});
