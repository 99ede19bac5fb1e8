// Message size as Service Bus announces and enforces it, driven with a raw rhea client as Python's azure-servicebus 7.8
// (uamqp) meets it: uamqp writes each message in frames no larger than the broker's max-frame-size, and sends a lone
// message without checking it against the link's max-message-size. Both failed on the emulator before their fix:
// every message over 64 KB failed inside uamqp, and a message over 256 KB was taken.
import rhea, { type Connection, type EventContext, type Message, type Sender } from "rhea";
import { afterAll, beforeAll, expect, test } from "vitest";
import { putToken, sasToken, startHarness } from "./support.js";

let harness: Awaited<ReturnType<typeof startHarness>>;
let connection: Connection;
beforeAll(async () => {
  harness = await startHarness();
  const namespace = `sb://127.0.0.1:${harness.emulator.port}`;
  connection = rhea.create_container().connect({ host: "127.0.0.1", port: harness.emulator.port, reconnect: false });
  connection.on("connection_error", () => {});
  connection.on("error", () => {});
  connection.on("disconnected", () => {});
  await new Promise((resolve) => connection.once("connection_open", resolve));
  expect(await putToken(connection, namespace, sasToken(namespace, "RootManageSharedAccessKey", "SAS_KEY_VALUE"))).toBe(202);
});
afterAll(async () => {
  connection?.close();
  await harness.close();
});

/** Sends one message on a fresh link; resolves to the outcome and its error, if any. */
async function sendOne(queue: string, body: Buffer): Promise<{ outcome: string; error?: { condition?: string; description?: string } }> {
  const sender: Sender = connection.open_sender({ target: { address: queue } });
  return await new Promise((resolve, reject) => {
    sender.once("sendable", () => sender.send({ message_id: `m-${body.length}`, body } as Message));
    sender.once("accepted", () => resolve({ outcome: "accepted" }));
    sender.once("rejected", (context: EventContext) => {
      const state = (context.delivery as unknown as { remote_state?: { error?: { condition?: string; description?: string } } }).remote_state;
      resolve({ outcome: "rejected", ...(state?.error ? { error: state.error } : {}) });
    });
    sender.once("sender_close", () => reject(new Error(`link closed: ${JSON.stringify(sender.error)}`)));
  });
}

test("the open frame announces Service Bus's max-frame-size, 65536 (rhea's default, none, made uamqp fail every message over 64 KB)", () => {
  expect((connection as unknown as { remote: { open: { max_frame_size: number } } }).remote.open.max_frame_size).toBe(65_536);
});

test("a 200 KB message (under the limit) is taken whole", async () => {
  const queue = harness.queue();
  const body = Buffer.alloc(200 * 1024, 0x61);
  expect(await sendOne(queue, body)).toEqual({ outcome: "accepted" });
  const receiver = harness.client.createReceiver(queue);
  const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
  await receiver.completeMessage(message!);
  await receiver.close();
  expect(Buffer.from(message!.body as Buffer).equals(body)).toBe(true);
});

test("a message over 256 KB is rejected with message-size-exceeded, as Service Bus refuses it, and not enqueued", async () => {
  const queue = harness.queue();
  const result = await sendOne(queue, Buffer.alloc(300 * 1024, 0x61));
  expect(result.outcome).toBe("rejected");
  expect(result.error?.condition).toBe("amqp:link:message-size-exceeded");
  expect(result.error?.description).toMatch(/^The received message \(delivery-id:\d+, size:3\d{5} bytes\) exceeds the limit \(262144 bytes\) currently allowed on the link\.$/);
  expect(harness.emulator.counts(queue).active).toBe(0);
});
