// Bad input from a client gets a clear AMQP error and never takes the broker down. Driven with a raw rhea client,
// since the SDK never sends such frames.
import rhea, { type Connection, type EventContext, type Message } from "rhea";
import { afterAll, beforeAll, expect, test } from "vitest";
import { putToken, sasToken, startHarness } from "./support.js";

let harness: Awaited<ReturnType<typeof startHarness>>;
let connection: Connection;
beforeAll(async () => {
  harness = await startHarness();
  const container = rhea.create_container();
  connection = container.connect({ host: "127.0.0.1", port: harness.emulator.port, reconnect: false });
  await new Promise((resolve) => connection.once("connection_open", resolve));
  // A namespace-wide token with every right, as the SDK puts one per link.
  const namespace = `sb://127.0.0.1:${harness.emulator.port}`;
  expect(await putToken(connection, namespace, sasToken(namespace, "RootManageSharedAccessKey", "SAS_KEY_VALUE"))).toBe(202);
});
afterAll(async () => {
  connection.close();
  await harness.close();
});

function sendRaw(address: string, payload: Message | Buffer, format?: number): Promise<EventContext> {
  return new Promise((resolve) => {
    const sender = connection.open_sender({ target: { address } });
    sender.once("sendable", () => {
      if (format === undefined) sender.send(payload as Message);
      else sender.send(payload as Buffer, undefined, format);
    });
    for (const outcome of ["accepted", "rejected", "released"]) sender.once(outcome, (context: EventContext) => resolve(context));
  });
}

test("a transfer that claims to be a batch but is not is rejected with amqp:decode-error", async () => {
  const queue = harness.queue();
  const context = await sendRaw(queue, Buffer.from("not an AMQP message"), 0x80013700);
  const state = context.delivery?.remote_state as { error?: { condition?: string } } | undefined;
  expect(state?.error?.condition).toBe("amqp:decode-error");
  const batchOfValues = rhea.message.encode({ body: "a value, not data sections" });
  const second = await sendRaw(queue, batchOfValues, 0x80013700);
  expect((second.delivery?.remote_state as { error?: { description?: string } }).error?.description).toMatch(/data sections/);
  expect(harness.emulator.inspect(queue).active).toEqual([]);
});

test("a malformed $management request is answered 400 and the broker keeps serving the SDK", async () => {
  const queue = harness.queue();
  const replyTo = "raw-reply";
  const receiver = connection.open_receiver({ source: { address: `${queue}/$management` }, target: { address: replyTo }, name: replyTo });
  const reply = new Promise<Message>((resolve) => receiver.once("message", (context: EventContext) => resolve(context.message as Message)));
  await new Promise((resolve) => receiver.once("receiver_open", resolve));
  await sendRaw(`${queue}/$management`, {
    message_id: "req-1",
    reply_to: replyTo,
    application_properties: { operation: "com.microsoft:peek-message" },
    body: { "message-count": 1 },
  } as Message);
  const answer = await reply;
  expect(answer.correlation_id).toBe("req-1");
  expect(answer.application_properties).toMatchObject({ statusCode: 400, errorCondition: "amqp:invalid-field" });

  const sender = harness.client.createSender(queue);
  await sender.sendMessages({ body: "still alive" });
  await sender.close();
  expect(harness.emulator.inspect(queue).active.map((message) => message.body)).toEqual(["still alive"]);
});
