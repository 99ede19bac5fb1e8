// The frames clients other than the JavaScript SDK send, driven with a raw rhea client: Python's azure-servicebus
// (uamqp) and Proton-C. Each test is one fault found by running those clients against the emulator; each failed on
// the emulator before its fix.
import { connect, createServer, type Server, type Socket } from "node:net";
import rhea, { type Connection, type EventContext, type Message, type Receiver } from "rhea";
import { afterAll, beforeAll, expect, test } from "vitest";
import { putToken, sasToken, startHarness, waitFor } from "./support.js";

let harness: Awaited<ReturnType<typeof startHarness>>;
let namespace: string;
let rootToken: string;
const connections: Connection[] = [];
beforeAll(async () => {
  harness = await startHarness();
  namespace = `sb://127.0.0.1:${harness.emulator.port}`;
  rootToken = sasToken(namespace, "RootManageSharedAccessKey", "SAS_KEY_VALUE");
});
afterAll(async () => {
  for (const connection of connections) connection.close();
  for (const relay of taps) await relay.close();
  await harness.close();
});

/**
 * A TCP relay that keeps what the emulator writes, to read encodings and frame order rhea's client would hide. What
 * the client writes in one tick goes on in one write, as Proton-C writes a batch of frames (rhea writes each alone).
 */
async function tap(): Promise<Tap> {
  const chunks: Buffer[] = [];
  const sockets: Socket[] = [];
  const server: Server = createServer((client) => {
    const upstream = connect(harness.emulator.port, "127.0.0.1");
    sockets.push(client, upstream);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    let batch: Buffer[] = [];
    client.on("data", (chunk: Buffer) => {
      if (batch.push(chunk) > 1) return;
      setImmediate(() => {
        upstream.write(Buffer.concat(batch));
        batch = [];
      });
    });
    upstream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      client.write(chunk);
    });
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    fromServer: () => Buffer.concat(chunks),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Tap {
  port: number;
  fromServer: () => Buffer;
  close: () => Promise<void>;
}

/** The performatives the emulator wrote, in wire order (the SASL and AMQP headers skipped, heartbeats left out). */
function performatives(bytes: Buffer): string[] {
  const names: Record<number, string> = { 0x10: "open", 0x11: "begin", 0x12: "attach", 0x13: "flow", 0x14: "transfer", 0x15: "disposition", 0x16: "detach", 0x17: "end", 0x18: "close" };
  const seen: string[] = [];
  let at = 0;
  while (at + 8 <= bytes.length) {
    if (bytes.subarray(at, at + 4).toString("latin1") === "AMQP") {
      at += 8;
      continue;
    }
    const size = bytes.readUInt32BE(at);
    const body = at + bytes[at + 4]! * 4;
    if (bytes[at + 5] === 0 && size > body - at && bytes[body] === 0x00 && bytes[body + 1] === 0x53) {
      seen.push(names[bytes[body + 2]!] ?? `0x${bytes[body + 2]!.toString(16)}`);
    }
    at += size;
  }
  return seen;
}

const taps: Tap[] = [];
let lastTap: Tap;

/** A rhea connection through a fresh tap (`lastTap`), as the client under test. */
async function open(): Promise<Connection> {
  lastTap = await tap();
  taps.push(lastTap);
  const connection = rhea.create_container().connect({ host: "127.0.0.1", port: lastTap.port, reconnect: false });
  connection.on("connection_error", () => {});
  connection.on("error", () => {});
  connection.on("disconnected", () => {});
  connections.push(connection);
  await new Promise((resolve) => connection.once("connection_open", resolve));
  return connection;
}

/**
 * A request/response pair on one node. As uamqp makes it: both links' addresses the node, no reply-to anywhere; with
 * `replyTo`, as the JavaScript SDK makes it (the reply link named in each request).
 */
async function requestLinks(connection: Connection, node: string, replyTo?: string) {
  const session = connection.create_session();
  session.begin();
  const replies = session.open_receiver({
    source: { address: node },
    target: { address: replyTo ?? node },
    ...(replyTo ? { name: replyTo } : {}),
    autoaccept: true,
  });
  const requests = session.open_sender({ target: { address: node }, source: { address: node } });
  await Promise.all([
    new Promise((resolve) => replies.once("receiver_open", resolve)),
    new Promise((resolve) => requests.once("sendable", resolve)),
  ]);
  return { replies, requests };
}

/** One request and its reply (the order of frames on the wire is read from the tap: rhea's events may swap them). */
async function exchange(connection: Connection, node: string, request: Message): Promise<{ reply: Message }> {
  const { replies, requests } = await requestLinks(connection, node, request.reply_to as string | undefined);
  const reply = new Promise<Message>((resolve, reject) => {
    replies.once("message", (context: EventContext) => resolve(context.message as Message));
    setTimeout(() => reject(new Error(`no reply on ${node} within 5 s`)), 5_000);
  });
  requests.send(request);
  return { reply: await reply };
}

const putTokenRequest = (audience: string, token: string): Message =>
  ({
    message_id: `put-${Math.random()}`,
    application_properties: { operation: "put-token", name: audience, type: "servicebus.windows.net:sastoken" },
    body: token,
  }) as Message;

test("a put-token without reply-to (uamqp's CBS) is answered on the $cbs link it came from, after its settlement", async () => {
  const connection = await open();
  const request = putTokenRequest(namespace, rootToken);
  const { reply } = await exchange(connection, "$cbs", request);
  expect(reply.correlation_id).toBe(request.message_id);
  expect((reply.application_properties as Record<string, unknown>)["status-code"]).toBe(202);
  // On the wire: the request's disposition, then the reply (rhea's client may report them in either order).
  expect(performatives(lastTap.fromServer()).filter((name) => name === "transfer" || name === "disposition")).toEqual([
    "disposition",
    "transfer",
  ]);
});

test("a $management reply comes only after the request's settlement (uamqp: 'did not receive send confirmation')", async () => {
  const connection = await open();
  expect(await putToken(connection, namespace, rootToken)).toBe(202);
  const queue = harness.queue();
  const { reply } = await exchange(connection, `${queue}/$management`, {
    message_id: "peek-1",
    reply_to: "peek-1-reply",
    application_properties: { operation: "com.microsoft:peek-message" },
    body: { "from-sequence-number": rhea.types.wrap_long(1), "message-count": rhea.types.wrap_int(1) },
  } as Message);
  expect((reply.application_properties as Record<string, unknown>).statusCode).toBe(204);
  // put-token, then the peek: each request's disposition before its reply.
  expect(performatives(lastTap.fromServer()).filter((name) => name === "transfer" || name === "disposition")).toEqual([
    "disposition",
    "transfer",
    "disposition",
    "transfer",
  ]);
});

test("status codes are encoded as signed ints (uamqp refuses an unsigned status-code)", async () => {
  {
    const connection = await open();
    const relay = lastTap;
    expect(await putToken(connection, namespace, rootToken)).toBe(202);
    const { reply } = await exchange(connection, `${harness.queue()}/$management`, {
      message_id: "peek-2",
      reply_to: "peek-2-reply",
      application_properties: { operation: "com.microsoft:peek-message" },
      body: { "from-sequence-number": rhea.types.wrap_long(1), "message-count": rhea.types.wrap_int(1) },
    } as Message);
    expect(reply).toBeDefined();
    connection.close();
    const bytes = relay.fromServer();
    for (const key of ["status-code", "statusCode"]) {
      const encodedKey = Buffer.concat([Buffer.from([0xa1, key.length]), Buffer.from(key)]);
      const at = bytes.indexOf(encodedKey);
      expect(at, `${key} is in a reply`).toBeGreaterThanOrEqual(0);
      // 0x54 smallint or 0x71 int: signed; 0x52 smalluint or 0x70 uint is what rhea writes for a plain number.
      expect([0x54, 0x71], `${key}'s type code`).toContain(bytes[at + encodedKey.length]);
    }
  }
});

test("link addresses written as amqps://host/queue (Python's SDK) resolve to the queue, for sends and receives", async () => {
  const connection = await open();
  const queue = harness.queue();
  expect(await putToken(connection, namespace, rootToken)).toBe(202);
  const address = `amqps://127.0.0.1:${harness.emulator.port}/${queue}`;
  const sender = connection.open_sender({ target: { address } });
  await new Promise((resolve, reject) => {
    sender.once("sendable", () => sender.send({ message_id: "m-1", body: "hello" } as Message));
    sender.once("accepted", resolve);
    sender.once("sender_close", () => reject(new Error(JSON.stringify(sender.error))));
  });
  const receiver = connection.open_receiver({ source: { address }, credit_window: 1, autoaccept: false });
  const received = await new Promise<Message>((resolve, reject) => {
    receiver.once("message", (context: EventContext) => resolve(context.message as Message));
    receiver.once("receiver_close", () => reject(new Error(JSON.stringify(receiver.error))));
  });
  expect(received.body).toBe("hello");
});

test("a deferred message received by sequence number carries its lock token inside the encoded message", async () => {
  const queue = harness.queue();
  const sdkSender = harness.client.createSender(queue);
  await sdkSender.sendMessages({ body: "later", messageId: "deferred-1" });
  const sdkReceiver = harness.client.createReceiver(queue);
  const [message] = await sdkReceiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
  await sdkReceiver.deferMessage(message!);
  await sdkReceiver.close();
  await sdkSender.close();

  const connection = await open();
  expect(await putToken(connection, namespace, rootToken)).toBe(202);
  const { reply } = await exchange(connection, `${queue}/$management`, {
    message_id: "by-sequence",
    reply_to: "by-sequence-reply",
    application_properties: { operation: "com.microsoft:receive-by-sequence-number" },
    body: {
      "sequence-numbers": rhea.types.wrap_array([Number(message!.sequenceNumber)], 0x81, undefined),
      "receiver-settle-mode": rhea.types.wrap_uint(1),
    },
  } as Message);
  const [entry] = (reply.body as { messages: { message: Buffer; "lock-token": Buffer }[] }).messages;
  const encoded = rhea.message.decode(entry!.message) as unknown as { delivery_annotations?: Record<string, unknown> };
  expect(encoded.delivery_annotations?.["x-opt-lock-token"]).toEqual(entry!["lock-token"]);
});

test("no delivery goes out before the receive link's attach (Proton-C grants credit right after its attach)", async () => {
  const queue = harness.queue();
  const sdkSender = harness.client.createSender(queue);
  await sdkSender.sendMessages([{ body: "waiting-1" }, { body: "waiting-2" }]);
  await sdkSender.close();
  const connection = await open();
  expect(await putToken(connection, namespace, rootToken)).toBe(202);
  const events: string[] = [];
  const protocolErrors: unknown[] = [];
  connection.on("protocol_error", (error: unknown) => protocolErrors.push(error));
  // Credit granted in the tick of the attach: rhea writes the attach and that flow in one pass, and the tap passes them
  // on in one write, as Proton-C sends them.
  const receiver: Receiver = connection.open_receiver({ source: { address: queue }, credit_window: 0, autoaccept: false });
  receiver.add_credit(10);
  receiver.on("receiver_open", () => events.push("attach"));
  receiver.on("message", () => events.push("message"));
  await waitFor(() => events.filter((event) => event === "message").length === 2 || protocolErrors.length > 0, 5_000, "both deliveries");
  expect(protocolErrors).toEqual([]);
  expect(events).toEqual(["attach", "message", "message"]);
  // After the put-token's links are gone: our attach, then the deliveries.
  const wire = performatives(lastTap.fromServer());
  const receiving = wire.slice(wire.lastIndexOf("detach") + 1);
  expect(receiving.indexOf("attach"), wire.join(" ")).toBeGreaterThanOrEqual(0);
  expect(receiving.indexOf("attach"), wire.join(" ")).toBeLessThan(receiving.indexOf("transfer"));
});
