// The emulator enforces shared access rights as Azure does, seen through the real @azure/service-bus SDK: each
// rule's connection string works for what its rights allow and fails the rest with UnauthorizedAccess.
import { createHmac } from "node:crypto";
import { ServiceBusClient, type ServiceBusClientOptions } from "@azure/service-bus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../../sandbox/index.js";
import rhea, { type EventContext, type Message } from "rhea";
import { errorCode, putToken, sasToken } from "./support.js";

let emulator: ServiceBusEmulator;
const clients: ServiceBusClient[] = [];
/** Surfaces the first error instead of retrying (UnauthorizedAccess is not retryable anyway). */
const options: ServiceBusClientOptions = { retryOptions: { maxRetries: 0, timeoutInMs: 10_000 } };
const clientFor = (connectionString: string): ServiceBusClient => {
  const client = new ServiceBusClient(connectionString, options);
  clients.push(client);
  return client;
};

beforeAll(async () => {
  emulator = await startServiceBusEmulator({
    queues: { billing: { lockDurationMs: 5_000 }, other: {}, third: {} },
    authorizationRules: {
      "billing-listen": { queue: "billing", rights: ["Listen"] },
      "billing-send": { queue: "billing", rights: ["Send"] },
      "billing-consumer": { queue: "billing", rights: ["Listen", "Send"], key: "a-known-test-key" },
      "namespace-listen": { rights: ["Listen"] },
    },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await emulator.stop();
});

describe("connection strings", () => {
  it("keeps every right on the default connection string and names each rule's own, with EntityPath for a queue rule", () => {
    expect(emulator.connectionString).toBe(emulator.connectionStringFor("RootManageSharedAccessKey"));
    expect(emulator.connectionString).toContain("SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;");
    expect(emulator.connectionStringFor("billing-consumer")).toBe(
      `Endpoint=sb://127.0.0.1:${emulator.port};SharedAccessKeyName=billing-consumer;SharedAccessKey=a-known-test-key;UseDevelopmentEmulator=true;EntityPath=billing`,
    );
    expect(emulator.connectionStringFor("namespace-listen")).not.toContain("EntityPath");
    expect(() => emulator.connectionStringFor("nope")).toThrow(/No authorization rule named nope; known: RootManageSharedAccessKey, billing-listen/);
  });

  it("refuses invalid rules at start, naming the problem", async () => {
    await expect(startServiceBusEmulator({ queues: {}, authorizationRules: { admin: { rights: ["Manage"] } } })).rejects.toThrow(
      "Authorization rule admin: Manage requires Listen and Send too, as Azure requires",
    );
    await expect(startServiceBusEmulator({ queues: {}, authorizationRules: { none: { rights: [] } } })).rejects.toThrow(/rights must list at least one/);
    await expect(
      startServiceBusEmulator({ queues: {}, authorizationRules: { odd: { rights: ["Read" as "Listen"] } } }),
    ).rejects.toThrow(/unknown right "Read"/);
  });
});

describe("a Listen-only queue rule", () => {
  it("receives, settles and peeks, but cannot send or schedule (scheduling is a send)", async () => {
    await clientFor(emulator.connectionString).createSender("billing").sendMessages({ body: "to receive", messageId: "listen-1" });
    const client = clientFor(emulator.connectionStringFor("billing-listen"));
    const receiver = client.createReceiver("billing");
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    expect(message?.messageId).toBe("listen-1");
    if (message) await receiver.completeMessage(message);
    expect(await receiver.peekMessages(1)).toEqual([]);

    const sender = client.createSender("billing");
    expect(await errorCode(sender.sendMessages({ body: "refused" }))).toBe("UnauthorizedAccess");
    expect(await errorCode(sender.scheduleMessages({ body: "retry later" }, new Date(Date.now() + 60_000)))).toBe("UnauthorizedAccess");
    expect(emulator.counts("billing")).toMatchObject({ active: 0, scheduled: 0 });
  });
});

describe("a Send-only queue rule", () => {
  it("sends and schedules, but cannot receive or peek", async () => {
    const client = clientFor(emulator.connectionStringFor("billing-send"));
    const sender = client.createSender("billing");
    await sender.sendMessages({ body: "sent", messageId: "send-1" });
    await sender.scheduleMessages({ body: "scheduled", messageId: "send-2" }, new Date(Date.now() + 60_000));
    expect(emulator.counts("billing")).toMatchObject({ active: 1, scheduled: 1 });

    expect(await errorCode(client.createReceiver("billing").receiveMessages(1, { maxWaitTimeInMs: 2_000 }))).toBe("UnauthorizedAccess");
    expect(await errorCode(client.createReceiver("billing").peekMessages(1))).toBe("UnauthorizedAccess");
    expect(await errorCode(client.createReceiver("billing", { subQueueType: "deadLetter" }).peekMessages(1))).toBe("UnauthorizedAccess");

    const drain = clientFor(emulator.connectionString).createReceiver("billing", { receiveMode: "receiveAndDelete" });
    expect((await drain.receiveMessages(1, { maxWaitTimeInMs: 5_000 })).map((m) => m.messageId)).toEqual(["send-1"]);
  });
});

describe("a Listen+Send queue rule (what BillingQueue deploys for a consumer)", () => {
  it("receives, schedules its retry and completes", async () => {
    await clientFor(emulator.connectionString).createSender("billing").sendMessages({ body: "event", messageId: "both-1" });
    const client = clientFor(emulator.connectionStringFor("billing-consumer"));
    const receiver = client.createReceiver("billing");
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    expect(message?.messageId).toBe("both-1");
    await client.createSender("billing").scheduleMessages({ body: "event", messageId: "both-1:retry:1" }, new Date(Date.now() + 60_000));
    if (message) await receiver.completeMessage(message);
    expect(emulator.inspect("billing").scheduled.map((m) => m.messageId)).toContain("both-1:retry:1");
  });
});

describe("scope and signature", () => {
  it("does not let a queue rule sign for another queue", async () => {
    const otherQueue = emulator.connectionStringFor("billing-consumer").replace(";EntityPath=billing", "");
    const client = clientFor(otherQueue);
    expect(await errorCode(client.createSender("other").sendMessages({ body: "x" }))).toBe("UnauthorizedAccess");
    expect(await errorCode(client.createReceiver("other").peekMessages(1))).toBe("UnauthorizedAccess");
    expect(emulator.counts("other").active).toBe(0);
  });

  it("lets a namespace rule act on every queue, within its rights", async () => {
    await clientFor(emulator.connectionString).createSender("third").sendMessages({ body: "x", messageId: "ns-1" });
    const client = clientFor(emulator.connectionStringFor("namespace-listen"));
    expect((await client.createReceiver("third").peekMessages(1)).map((m) => m.messageId)).toEqual(["ns-1"]);
    expect(await errorCode(client.createSender("third").sendMessages({ body: "y" }))).toBe("UnauthorizedAccess");
  });

  it("refuses a wrong key, and a token that expired, at put-token", async () => {
    const wrongKey = emulator.connectionStringFor("billing-consumer").replace("a-known-test-key", "not-the-key");
    expect(await errorCode(clientFor(wrongKey).createSender("billing").sendMessages({ body: "x" }))).toBe("UnauthorizedAccess");

    const resource = encodeURIComponent(`sb://127.0.0.1:${emulator.port}/billing`);
    const signed = (expiry: number) => {
      const sig = encodeURIComponent(createHmac("sha256", "a-known-test-key").update(`${resource}\n${expiry}`).digest("base64"));
      return `Endpoint=sb://127.0.0.1:${emulator.port};SharedAccessSignature=SharedAccessSignature sr=${resource}&sig=${sig}&se=${expiry}&skn=billing-consumer;UseDevelopmentEmulator=true`;
    };
    const now = Math.floor(Date.now() / 1000);
    expect(await errorCode(clientFor(signed(now - 60)).createSender("billing").sendMessages({ body: "x" }))).toBe("UnauthorizedAccess");
    // The same token, still valid: the signature scheme is Azure's (HMAC-SHA256 of the url-encoded resource and expiry).
    await clientFor(signed(now + 600)).createSender("billing").sendMessages({ body: "pre-signed", messageId: "sas-1" });
    expect(emulator.inspect("billing").active.map((m) => m.messageId)).toContain("sas-1");
  });
});

describe("on the wire (a raw AMQP client)", () => {
  it("answers put-token 401 for a resource outside the rule's queue, and refuses settlement over $management without Listen", async () => {
    const connection = rhea.create_container().connect({ host: "127.0.0.1", port: emulator.port, reconnect: false });
    await new Promise((resolve) => connection.once("connection_open", resolve));
    try {
      const base = `sb://127.0.0.1:${emulator.port}`;
      const sendKey = /SharedAccessKey=([^;]+)/.exec(emulator.connectionStringFor("billing-send"))?.[1] ?? "";
      expect(await putToken(connection, `${base}/other`, sasToken(`${base}/other`, "billing-send", sendKey))).toBe(401);
      expect(await putToken(connection, `${base}/billing/$management`, sasToken(`${base}/billing`, "billing-send", `${sendKey}x`))).toBe(401);
      expect(await putToken(connection, `${base}/billing/$management`, sasToken(`${base}/billing`, "billing-send", sendKey))).toBe(202);

      const replyTo = "mgmt-reply";
      const receiver = connection.open_receiver({ source: { address: "billing/$management" }, target: { address: replyTo }, name: replyTo });
      await new Promise((resolve) => receiver.once("receiver_open", resolve));
      const reply = new Promise<Message>((resolve) => receiver.once("message", (context: EventContext) => resolve(context.message as Message)));
      const sender = connection.open_sender({ target: { address: "billing/$management" } });
      sender.once("sendable", () =>
        sender.send({
          message_id: "settle-1",
          reply_to: replyTo,
          application_properties: { operation: "com.microsoft:update-disposition" },
          body: { "lock-tokens": [], "disposition-status": "completed" },
        } as Message),
      );
      const answer = await reply;
      expect(answer.application_properties).toMatchObject({
        statusCode: 401,
        errorCondition: "amqp:unauthorized-access",
        statusDescription: "Unauthorized access. 'Listen' claim(s) are required to perform this operation. Resource: 'billing/$management'.",
      });
    } finally {
      connection.close();
    }
  });
});
