// The billing consumer with its guard on real PostgreSQL (TEST_DATABASE_URL, or a server started for this file):
// a charge, and a replica killed at each step boundary, as in consumer.e2e.test.ts on PGlite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerSteps } from "../../../runtime/handler/consumer-steps.js";
import { type RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer, type BillingConsumerOptions } from "../../../runtime/consumer/consumer.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { killAt } from "../../support/kill-at.js";
import { postgresServerUrl } from "../../support/postgres-server.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";

describe("billing consumer on PostgreSQL", () => {
  let databaseUrl: string;
  let sandbox: BillingSandbox;
  let guard: Guard;
  const running: RunningConsumer[] = [];

  beforeAll(async () => {
    databaseUrl = await postgresServerUrl();
    sandbox = await startBillingSandbox();
    guard = await Guard.open({ databaseUrl, clock: sandbox.clock });
  });
  afterAll(async () => {
    await Promise.all(running.map((consumer) => consumer.close()));
    await guard?.close();
    await sandbox?.stop();
  });

  async function start(queue: string, extra: Partial<BillingConsumerOptions> = {}): Promise<RunningConsumer> {
    const consumer = await startBillingConsumer({
      ...consumerOptionsFor(sandbox, queue),
      databaseUrl,
      ...extra,
    });
    running.push(consumer);
    return consumer;
  }

  it.each(["none", ...consumerSteps] as const)("killed at %s, then a fresh replica: one charge, record completed", async (step) => {
    const queue = sandbox.queue();
    const event = await sandbox.event();
    const kill = step === "none" ? undefined : killAt(step, (e) => e.customerId === event.customerId);
    const first = await start(queue, kill ? { hook: kill.hook } : {});
    await sandbox.send(queue, { body: event, messageId: `m-pg-${step}` });
    if (kill) {
      await kill.arrived;
      await first.close();
      await start(queue);
    }
    await waitFor("record done", async () => (await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.state === "done");
    const intents = sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId);
    expect(intents).toHaveLength(1);
    expect(intents[0]?.status).toBe("succeeded");
    expect((await guard.get("billing", { customerId: event.customerId, billingPeriod: event.billingPeriod }))?.objectId).toBe(intents[0]?.id);
  });
});
