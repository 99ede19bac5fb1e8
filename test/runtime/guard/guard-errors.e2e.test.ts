// Typed errors decide a message's fate, not built-in error classes: an unforeseen TypeError inside the guard is an
// unknown outcome (a scheduled retry with backoff, the billing still charged once), only a proven-invalid event
// (InvalidEventError) is dead-lettered as InvalidEvent. Real SDKs against the sandbox, the real guard on PGlite
// behind a double that throws where the test says.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decorateStore } from "../../../runtime/guard/decorate-store.js";
import type { GuardStore } from "../../../runtime/guard/guard-store.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { InvalidEventError } from "../../../runtime/core/errors.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";

let sandbox: BillingSandbox;
let guard: Guard;
const logs: string[] = [];
const running: RunningConsumer[] = [];

beforeAll(async () => {
  sandbox = await startBillingSandbox();
  guard = await Guard.open({ pglite: sandbox.pglite, clock: sandbox.clock, leaseMs: 3_000 });
});
afterAll(async () => {
  await Promise.all(running.map((consumer) => consumer.close()));
  await guard?.close();
  await sandbox?.stop();
});

/** The real guard, except that `claim` first throws what `failures` yields (one per call) for the given customer. */
function guardThrowing(customerId: string, failures: Error[]): GuardStore<never> & { claims: number } {
  const double = { claims: 0 };
  // Every method of the real guard (a plain object, so it spreads), then claim replaced.
  const store = decorateStore(guard as GuardStore, (_method, call) => call());
  const claim: GuardStore["claim"] = async (request) => {
    if (request.key.customerId === customerId) {
      double.claims += 1;
      const failure = failures.shift();
      if (failure) throw failure;
    }
    return store.claim(request);
  };
  return Object.assign(double, { ...store, claim }) as unknown as GuardStore<never> & { claims: number };
}

async function start(queue: string, extra: Partial<BillingConsumerOptions>): Promise<RunningConsumer> {
  const consumer = await startBillingConsumer({ ...consumerOptionsFor(sandbox, queue), log: (line) => logs.push(line), ...extra });
  running.push(consumer);
  return consumer;
}

describe("errors inside the guard (real SDKs against the sandbox)", () => {
  it("an unforeseen TypeError from guard.claim schedules a retry with backoff, never a dead letter; the retry charges once", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event();
    const double = guardThrowing(event.customerId, [new TypeError("Cannot read properties of undefined (reading 'rows')")]);
    await start(queue, { guard: double });
    await sandbox.send(queue, { body: event, messageId: "m-type-error" });

    await waitFor("record done", async () => (await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.state === "done");
    await waitFor("queue drained", () => {
      const snapshot = sandbox.serviceBus.inspect(queue);
      return snapshot.active.length + snapshot.locked.length + snapshot.scheduled.length === 0;
    });
    expect(double.claims).toBe(2);
    expect(logs.some((line) => line.includes("guard failed: TypeError") && line.includes("retry 2 as m-type-error:retry:2"))).toBe(true);
    expect(sandbox.serviceBus.inspect(queue).deadLettered).toEqual([]);
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).filter((pi) => pi.status === "succeeded")).toHaveLength(1);
  });

  it("an InvalidEventError from the guard is a proven-invalid event: dead-lettered InvalidEvent, Stripe never called", async () => {
    const queue = sandbox.queue();
    const event = await sandbox.event();
    await start(queue, { guard: guardThrowing(event.customerId, [new InvalidEventError("customerId is not one of ours", "customerId")]) });
    await sandbox.send(queue, { body: event, messageId: "m-invalid-at-guard" });

    const [dead] = await waitFor("dead-lettered", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length === 1 ? letters : undefined;
    });
    expect(dead).toMatchObject({ messageId: "m-invalid-at-guard", deadLetterReason: "InvalidEvent", deadLetterDescription: "customerId is not one of ours" });
    expect(sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId)).toHaveLength(0);
  });
});
