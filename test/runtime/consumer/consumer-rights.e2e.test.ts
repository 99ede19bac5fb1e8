// The consumer needs Send on its own queue: an unknown outcome is retried as a scheduled message, and scheduling is
// a send. Run with the rights BillingQueue deploys (consumerQueueRights) the retry is scheduled; with Listen only,
// as BillingQueue used to deploy, Service Bus refuses it (UnauthorizedAccess, which the SDK retries for its whole
// retry budget before the consumer gives up) and the message waits for its lock.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningConsumer } from "../../../runtime/consumer/consumer-contract.js";
import { startBillingConsumer } from "../../../runtime/consumer/consumer.js";
import { consumerQueueRights } from "../../../tuning/index.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../support/billing-sandbox.js";

let sandbox: BillingSandbox;
const broker: string[] = [];
beforeAll(async () => {
  sandbox = await startBillingSandbox({ authorizationRules: { "listen-only": { rights: ["Listen"] } }, log: (line) => broker.push(line) });
});
afterAll(async () => {
  await sandbox?.stop();
});

async function retryOfAConflict(connectionString: string, decided: (logs: string[]) => boolean): Promise<{ logs: string[]; scheduled: string[] }> {
  const queue = sandbox.queue();
  const event = await sandbox.event();
  sandbox.stripe.faults.inject({
    method: "POST",
    path: "/v1/payment_intents",
    // A 409 (a request with the key still executing) is an unknown outcome that counts as an attempt: a scheduled
    // retry with the policy's backoff (a timeout would be a short wait, gone before we look).
    action: "conflict",
    times: 1,
    when: (request) => request.params.customer === event.stripeCustomerId,
  });
  const logs: string[] = [];
  const options = consumerOptionsFor(sandbox, queue);
  const consumer: RunningConsumer = await startBillingConsumer({
    ...options,
    serviceBus: { ...options.serviceBus, connectionString },
    pglite: sandbox.pglite,
    // Long enough that the retry is still waiting when we look.
    retryPolicy: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
    log: (line) => logs.push(line),
  });
  try {
    await sandbox.send(queue, { body: event, messageId: "m-conflict" });
    await waitFor("the retry decision", () => decided(logs), 20_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; queue ${JSON.stringify(sandbox.serviceBus.counts(queue))}; the consumer logged:\n${logs.join("\n")}`);
    });
    return { logs, scheduled: sandbox.serviceBus.inspect(queue).scheduled.map((message) => message.messageId) };
  } finally {
    await consumer.close();
  }
}

it("schedules its retry with the rights BillingQueue deploys for a consumer", async () => {
  expect(consumerQueueRights.sasRights).toContain("Send");
  const { logs, scheduled } = await retryOfAConflict(sandbox.serviceBus.connectionStringFor("consumer"), (lines) =>
    lines.some((line) => /retry \d+ as|retry not scheduled/.test(line)),
  );
  expect(scheduled).toEqual(["m-conflict:retry:2"]);
  expect(logs.filter((line) => line.includes("retry not scheduled"))).toEqual([]);
});

it("cannot schedule its retry with Listen only: Service Bus refuses the send", async () => {
  const refusal = (line: string) => line.includes("refused com.microsoft:schedule-message") && line.includes("'Send' claim(s) are required");
  const { logs, scheduled } = await retryOfAConflict(sandbox.serviceBus.connectionStringFor("listen-only"), () => broker.some(refusal));
  expect(scheduled).toEqual([]);
  expect(logs.filter((line) => /retry \d+ as/.test(line))).toEqual([]);
});
