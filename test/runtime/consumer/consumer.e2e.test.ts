// The billing consumer end to end: the real @azure/service-bus and stripe SDKs against the sandbox emulators,
// the real guard on PGlite. Each test has its own queue and Stripe customer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerSteps, type ConsumerStep } from "../../../runtime/handler/consumer-steps.js";
import { type UsageEvent } from "../../../runtime/event/usage-event.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { Guard } from "../../../runtime/guard/guard.js";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { KeybrakeKeyProvider } from "../../../runtime/stripe/vault/keybrake-key-provider.js";
import { startKeybrakeEmulator } from "../../../sandbox/keybrake/index.js";
import { killAt } from "../../support/kill-at.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";
import { drained as queueDrained } from "../support/sandbox-ledger.js";

let sandbox: BillingSandbox;
let guard: Guard;
const logs: string[] = [];
const running: RunningConsumer[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  guard = await Guard.open({ pglite: sandbox.pglite, clock: sandbox.clock });
});
afterAll(async () => {
  await Promise.all(running.map((consumer) => consumer.close()));
  await guard?.close();
  await sandbox?.stop();
});

async function start(queue: string, extra: Partial<BillingConsumerOptions> = {}): Promise<RunningConsumer> {
  const consumer = await startBillingConsumer({
    ...consumerOptionsFor(sandbox, queue),
    pglite: sandbox.pglite,
    log: (line) => logs.push(line),
    ...extra,
  });
  running.push(consumer);
  return consumer;
}

const succeeded = (event: UsageEvent) => sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).filter((pi) => pi.status === "succeeded");
const drained = (queue: string) => queueDrained(sandbox, queue);

async function settledAs(event: UsageEvent, state: string): Promise<void> {
  await waitFor(`record ${state}`, async () => (await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.state === state);
}

describe("billing consumer (real SDKs against the sandbox)", () => {
  it("charges once, records, completes the message and the record", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event();
    await start(queue);
    await sandbox.send(queue, { body: event, messageId: "m-success" });
    await settledAs(event, "done");
    await waitFor("queue drained", () => drained(queue));
    const [intent] = succeeded(event);
    expect(succeeded(event)).toHaveLength(1);
    expect(intent?.metadata).toMatchObject({ customer_id: event.customerId, billing_period: event.billingPeriod });
    expect((await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.objectId).toBe(intent?.id);

    // A DLQ resubmission with a new messageId, even after Stripe's 24-hour key window: no second charge.
    sandbox.clock.advance(25 * 3_600_000);
    await sandbox.send(queue, { body: event, messageId: "m-success-resubmitted-with-new-id" });
    await waitFor("resubmission completed", () => logs.some((l) => l.startsWith(`${event.customerId} ${event.billingPeriod}: already-billed pi_`) && l.endsWith(", completed")));
    await waitFor("queue drained", () => drained(queue));
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);
  });

  it("records a decline and never tries the card again on a redelivery", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event({ paymentMethodId: "pm_card_chargeDeclined" });
    await start(queue);
    await sandbox.send(queue, { body: event, messageId: "m-decline" });
    await settledAs(event, "declined");
    await waitFor("queue drained", () => drained(queue));
    await sandbox.send(queue, { body: event, messageId: "m-decline-again" });
    await waitFor("second delivery settled", () => logs.filter((l) => l.startsWith(`${event.customerId} ${event.billingPeriod}: declined, completed`)).length === 2);
    expect(sandbox.stripe.ledger.charges(event.stripeCustomerId)).toHaveLength(1);
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toHaveLength(0);
    const record = await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod });
    expect(record?.declineReason).toMatch(/generic_decline/);
  });

  it.each([
    { messages: 8, stripeCalls: 4 },
    { messages: 8, stripeCalls: 8 },
  ])("$messages messages in flight for $stripeCalls Stripe calls: never more calls at once, each event charged once", async ({ messages, stripeCalls }) => {
    const queue = sandbox.queue(2_000, { duplicateDetection: false });
    const latencyMs = 300;
    // Every PaymentIntent create is held 300 ms; its arrival times give how many were at Stripe at once.
    const arrivals: number[] = [];
    const hold = sandbox.stripe.faults.inject({
      method: "POST",
      path: "/v1/payment_intents",
      action: "latency",
      ms: latencyMs,
      when: () => arrivals.push(performance.now()) > 0,
    });
    const events = await Promise.all(Array.from({ length: 16 }, () => sandbox.event()));
    await start(queue, { maxConcurrentCalls: messages, maxConcurrentStripeCalls: stripeCalls });
    await Promise.all(events.map((event, i) => sandbox.send(queue, { body: event, messageId: `slots-${stripeCalls}-${i}` })));
    for (const event of events) await settledAs(event, "done");
    hold.remove();
    // Calls that started within one hold of each other overlapped at Stripe (a little slack for the timer).
    const peak = Math.max(...arrivals.map((start) => arrivals.filter((other) => other >= start && other < start + latencyMs - 20).length));
    expect(peak).toBe(stripeCalls);
    expect(events.map((event) => succeeded(event).length)).toEqual(events.map(() => 1));
  });

  it("a card that needs authentication off-session is a decline, not a retry", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event({ paymentMethodId: "pm_card_authenticationRequired" });
    await start(queue);
    await sandbox.send(queue, { body: event });
    await settledAs(event, "declined");
    expect(succeeded(event)).toHaveLength(0);
  });

  it("redelivery after lock loss mid-charge does not charge twice; the late complete is only logged", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event();
    let reached!: () => void;
    const atStripe = new Promise<void>((resolve) => (reached = resolve));
    let resume!: () => void;
    const gate = new Promise<void>((resolve) => (resume = resolve));
    await start(queue, {
      hook: async (step, e) => {
        if (step === "afterStripe" && e.customerId === event.customerId) {
          reached();
          await gate;
        }
      },
    });
    await sandbox.send(queue, { body: event, messageId: "m-lock-loss" });
    await atStripe;
    await start(queue);
    expect(sandbox.serviceBus.faults.expireLock(queue)).toBe(1);
    // The second replica meets the first one's lease: it schedules a retry instead of calling Stripe.
    await waitFor("busy retry scheduled", () => logs.some((l) => l.includes("another consumer holds the billing lease")));
    resume();
    await settledAs(event, "done");
    await waitFor("queue drained", () => drained(queue));
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);
    expect(logs.some((l) => l.startsWith(`${event.customerId} ${event.billingPeriod}: complete failed (MessageLockLost)`))).toBe(true);
  });

  it("Stripe commits then drops the connection: a wait is scheduled with the same key (no attempt spent), one charge", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event();
    const fault = sandbox.stripe.faults.inject({
      method: "POST",
      path: "/v1/payment_intents",
      action: "commitThenDrop",
      times: 2,
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    await start(queue);
    await sandbox.send(queue, { body: event, messageId: "m-drop" });
    await settledAs(event, "done");
    await waitFor("queue drained", () => drained(queue));
    expect(fault.hits).toBe(2);
    expect(logs.some((l) => l.includes("wait 1 as m-drop:retry:1:wait:1"))).toBe(true);
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);
    expect(succeeded(event)).toHaveLength(1);
  });

  it("a 500 then Stripe's 400 under the same key (no such customer): dead-lettered StripeInvalidRequest, nothing left pending or reserved", async () => {
    const queue = sandbox.queue();
    // A period of its own, so its spend is this billing's alone.
    const event = await sandbox.event({ stripeCustomerId: `cus_missing${Date.now()}`, billingPeriod: "2031-07" });
    // A front-door 500 (not saved under the key): the outcome is unknown, the retry executes and Stripe refuses it.
    const fault = sandbox.stripe.faults.inject({
      method: "POST",
      path: "/v1/payment_intents",
      action: "serverError",
      saved: false,
      times: 1,
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    await start(queue);
    await sandbox.send(queue, { body: event, messageId: "m-500-then-400" });
    const [letter] = await waitFor("dead-lettered", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length === 1 ? letters : undefined;
    });
    expect(fault.hits).toBe(1);
    // Refused on the wait scheduled after the 500: the record's second attempt.
    expect(letter).toMatchObject({ messageId: "m-500-then-400:retry:1:wait:1", deadLetterReason: "StripeInvalidRequest" });
    expect(letter?.deadLetterDescription).toMatch(/No such customer/);
    // The guard forgot the record (the consumer gives the key window): nothing pending, the period's cap whole again.
    expect(await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod })).toBeUndefined();
    expect(await guard.periodSpend(event.billingPeriod, event.currency)).toMatchObject({ reservedCents: 0 });
  });

  it("dead-letters a bad event with a reason naming the field, and never calls Stripe", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event();
    await start(queue);
    await sandbox.send(queue, { body: { ...event, amountCents: -3 }, messageId: "m-bad" });
    await sandbox.send(queue, { body: "{not json", messageId: "m-not-json" });
    const dead = await waitFor("dead-lettered", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length === 2 ? letters : undefined;
    });
    expect(dead.map((m) => [m.messageId, m.deadLetterReason])).toEqual([
      ["m-bad", "InvalidEvent"],
      ["m-not-json", "InvalidEvent"],
    ]);
    expect(dead[0]?.deadLetterDescription).toMatch(/^amountCents: /);
    expect(dead[1]?.deadLetterDescription).toMatch(/not valid JSON/);
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(0);
  });

  it("messages settled in the same tick each keep their own outcome (rhea would merge them: runtime/consumer/settlement-gate.ts)", async () => {
    const queue = sandbox.queue();
    const [event, again] = await Promise.all([sandbox.event(), sandbox.event()]);
    await start(queue, { maxConcurrentCalls: 8 });
    await sandbox.send(queue, { body: again, messageId: "together-first" });
    await settledAs(again, "done");
    // One batch, so the handlers run side by side: the malformed ones settle in the same tick (no Stripe call, no
    // database), next to a charge and an already-billed redelivery.
    const sender = sandbox.client.createSender(queue);
    await sender.sendMessages([
      { body: { ...event, amountCents: -1 }, messageId: "together-amount" },
      { body: "{not json", messageId: "together-json" },
      { body: event, messageId: "together-charge" },
      { body: { ...event, currency: "US" }, messageId: "together-currency" },
      { body: again, messageId: "together-again" },
    ]);
    await sender.close();
    const dead = await waitFor("three dead letters", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length >= 3 && drained(queue) ? letters : undefined;
    });
    expect(Object.fromEntries(dead.map((m) => [m.messageId, m.deadLetterDescription?.split(":")[0]]))).toEqual({
      "together-amount": "amountCents",
      "together-json": "body",
      "together-currency": "currency",
    });
    await settledAs(event, "done");
    expect(succeeded(event)).toHaveLength(1);
    expect(succeeded(again)).toHaveLength(1);
  });

  it("dead-letters SpendCapExceeded when the period's cap would be passed", async () => {
    const queue = sandbox.queue();
    const within = await sandbox.event({ billingPeriod: "2031-01", amountCents: 700 });
    const over = await sandbox.event({ billingPeriod: "2031-01", amountCents: 700 });
    await start(queue, { periodCapCents: 1_000 });
    await sandbox.send(queue, { body: within, messageId: "m-cap-1" });
    await settledAs(within, "done");
    await sandbox.send(queue, { body: over, messageId: "m-cap-2" });
    const [dead] = await waitFor("dead-lettered", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length === 1 ? letters : undefined;
    });
    expect(dead).toMatchObject({ messageId: "m-cap-2", deadLetterReason: "SpendCapExceeded" });
    expect(sandbox.stripe.ledger.paymentIntents(over.stripeCustomerId)).toHaveLength(0);
  });

  it("through per-period Keybrake vault keys: the proxy's cap refusal is dead-lettered SpendCapExceeded", async () => {
    const keybrake = await startKeybrakeEmulator({ stripeApiBase: sandbox.stripe.apiBase, clock: sandbox.clock });
    try {
      const queue = sandbox.queue();
      const first = await sandbox.event({ billingPeriod: "2032-01", amountCents: 700 });
      const second = await sandbox.event({ billingPeriod: "2032-01", amountCents: 700 });
      await start(queue, {
        keyProvider: new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock: sandbox.clock }),
        expectedPeriodTotalCents: 1_000,
      });
      await sandbox.send(queue, { body: first, messageId: "m-vault-1" });
      await settledAs(first, "done");
      await sandbox.send(queue, { body: second, messageId: "m-vault-2" });
      const [dead] = await waitFor("dead-lettered", () => {
        const letters = sandbox.serviceBus.inspect(queue).deadLettered;
        return letters.length === 1 ? letters : undefined;
      });
      expect(dead).toMatchObject({ messageId: "m-vault-2", deadLetterReason: "SpendCapExceeded" });
      expect(dead?.deadLetterDescription).toMatch(/vault key spend cap/);
      expect(keybrake.keys()).toEqual([expect.objectContaining({ label: "chargeguard-2032-01", capCents: 1_100 })]);
      expect(succeeded(first)).toHaveLength(1);
      expect(sandbox.stripe.ledger.paymentIntents(second.stripeCustomerId)).toHaveLength(0);
      // The refusal came after the claim and before Stripe: the record ends with its reservation given back, instead
      // of staying pending and reserved behind the dead letter.
      expect(await guard.get("billing", { customerId: second.customerId, billingPeriod: second.billingPeriod })).toBeUndefined();
      expect(await guard.periodSpend("2032-01", "usd")).toMatchObject({ reservedCents: 0, chargedCents: 700 });
    } finally {
      await keybrake.stop();
    }
  });

  it("an outage that outlasts the event: waits (never attempts, never abandoned), then dead-lettered EventDeadlineExceeded", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event();
    const fault = sandbox.stripe.faults.inject({
      method: "POST",
      path: "/v1/payment_intents",
      action: "serverError",
      saved: false,
      when: (request) => request.params.customer === event.stripeCustomerId,
    });
    // Two attempts would have dead-lettered it after one retry; the outage is the dependency's, so it waits.
    await start(queue, { maxAttempts: 2 });
    await sandbox.send(queue, { body: event, messageId: "m-outage", timeToLive: 4_000 });
    const [dead] = await waitFor("dead-lettered", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length === 1 ? letters : undefined;
    });
    fault.remove();
    expect(dead).toMatchObject({ deadLetterReason: "EventDeadlineExceeded" });
    expect(dead?.messageId).toMatch(/^m-outage:retry:1:wait:\d+$/);
    expect(Number(dead?.messageId.split(":").at(-1))).toBeGreaterThanOrEqual(2);
    expect(dead?.deliveryCount).toBe(1);
    expect(fault.hits).toBeGreaterThanOrEqual(3);
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(0);
  });

  describe.each(consumerSteps)("a replica killed at %s", (step: ConsumerStep) => {
    it("leaves work a fresh replica finishes: exactly one charge, record completed", async () => {
      const queue = sandbox.queue();
      const event = await sandbox.event();
      const kill = killAt(step, (e) => e.customerId === event.customerId);
      const doomed = await start(queue, { hook: kill.hook });
      await sandbox.send(queue, { body: event, messageId: `m-crash-${step}` });
      await kill.arrived;
      const closing = Date.now();
      await doomed.close();
      expect(Date.now() - closing).toBeLessThan(15_000);
      await start(queue);
      await settledAs(event, "done");
      await waitFor("queue drained", () => drained(queue));
      expect(succeeded(event)).toHaveLength(1);
      expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(1);
    });
  });
});
