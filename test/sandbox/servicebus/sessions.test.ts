// Sessions are not emulated; a session receiver is refused as Service Bus refuses one on a queue without sessions,
// instead of being handed messages of other sessions (or of none) under the session id it asked for.
import { isServiceBusError } from "@azure/service-bus";
import rhea, { type EventContext } from "rhea";
import { afterAll, beforeAll, expect, test } from "vitest";
import { putToken, sasToken, startHarness } from "./support.js";

let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

const refusal = /sessionful message receiver cannot be created on an entity that does not require sessions/;

async function queueWithTwoMessages(): Promise<string> {
  const queue = harness.queue();
  const sender = harness.client.createSender(queue);
  await sender.sendMessages([{ body: "other session", sessionId: "s-2" }, { body: "no session" }]);
  await sender.close();
  return queue;
}

test("a session receiver link (as Python's SDK attaches one, not checking the answer) is detached with Service Bus's error", async () => {
  const queue = await queueWithTwoMessages();
  const connection = rhea.create_container().connect({ host: "127.0.0.1", port: harness.emulator.port, reconnect: false });
  connection.on("disconnected", () => {});
  try {
    await new Promise((resolve) => connection.once("connection_open", resolve));
    const namespace = `sb://127.0.0.1:${harness.emulator.port}`;
    expect(await putToken(connection, namespace, sasToken(namespace, "RootManageSharedAccessKey", "SAS_KEY_VALUE"))).toBe(202);
    const receiver = connection.open_receiver({
      source: { address: queue, filter: { "com.microsoft:session-filter": "s-1" } },
      credit_window: 10,
      autoaccept: false,
    });
    const received: unknown[] = [];
    receiver.on("message", (context: EventContext) => received.push(context.message?.body));
    receiver.on("receiver_error", () => {});
    await new Promise((resolve, reject) => {
      receiver.once("receiver_close", resolve);
      setTimeout(() => reject(new Error(`still attached after 5 s, holding ${received.length} message(s)`)), 5_000);
    });
    expect(receiver.error).toMatchObject({ condition: "amqp:not-allowed", description: expect.stringMatching(refusal) });
    expect(received).toEqual([]);
    expect(harness.emulator.counts(queue)).toMatchObject({ active: 2, locked: 0, deliveries: 0 });
  } finally {
    connection.close();
  }
});

test("acceptNextSession on a queue without sessions fails with Service Bus's error and takes no message", async () => {
  const queue = await queueWithTwoMessages();
  const error = await harness.impatient.acceptNextSession(queue).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(isServiceBusError(error), String(error)).toBe(true);
  expect((error as Error).message).toMatch(refusal);
  expect(harness.emulator.counts(queue)).toMatchObject({ active: 2, locked: 0, deliveries: 0 });
});

test("acceptSession on a queue without sessions fails (the SDK words it as a locked session) and takes no message", async () => {
  const queue = await queueWithTwoMessages();
  const error = await harness.impatient.acceptSession(queue, "s-1").then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(isServiceBusError(error), String(error)).toBe(true);
  expect(harness.emulator.counts(queue)).toMatchObject({ active: 2, locked: 0, deliveries: 0 });
});
