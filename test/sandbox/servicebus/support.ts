import { createHmac } from "node:crypto";
import { ServiceBusClient, isServiceBusError } from "@azure/service-bus";
import type { Connection, EventContext, Message } from "rhea";
import { startServiceBusEmulator, type EmulatedQueueOptions, type ServiceBusEmulator } from "../../../sandbox/index.js";
import { vi } from "vitest";

/** One emulator and one real SDK client per test file; each test takes a fresh queue. */
export async function startHarness(): Promise<{
  emulator: ServiceBusEmulator;
  client: ServiceBusClient;
  /** A client that surfaces the first error instead of retrying (fault tests). */
  impatient: ServiceBusClient;
  queue(options?: EmulatedQueueOptions): string;
  close(): Promise<void>;
}> {
  const emulator = await startServiceBusEmulator({ queues: {} });
  const client = new ServiceBusClient(emulator.connectionString);
  const impatient = new ServiceBusClient(emulator.connectionString, {
    retryOptions: { maxRetries: 0, timeoutInMs: 10_000 },
  });
  let count = 0;
  return {
    emulator,
    client,
    impatient,
    queue(options) {
      const name = `queue-${++count}`;
      emulator.addQueue(name, options);
      return name;
    },
    async close() {
      await client.close();
      await impatient.close();
      await emulator.stop();
    },
  };
}

export async function waitFor(condition: () => boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The Service Bus error code of a rejection, or the error itself when it is not one. */
export async function errorCode(operation: Promise<unknown>): Promise<string> {
  try {
    await operation;
  } catch (error) {
    if (isServiceBusError(error)) return error.code;
    throw error;
  }
  throw new Error("Expected the operation to fail");
}

/** Azure's SAS token: HMAC-SHA256 of the url-encoded resource, a newline and the expiry (epoch seconds), base64. */
export function sasToken(resource: string, keyName: string, key: string, expirySeconds = Math.floor(Date.now() / 1000) + 600): string {
  const sr = encodeURIComponent(resource);
  const sig = encodeURIComponent(createHmac("sha256", key).update(`${sr}\n${expirySeconds}`).digest("base64"));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${expirySeconds}&skn=${encodeURIComponent(keyName)}`;
}

/** A raw CBS put-token on a rhea connection, as the SDK sends it before each link; resolves to the status code. */
export async function putToken(connection: Connection, audience: string, token: string): Promise<number> {
  const replyTo = `cbs-reply-${Math.random().toString(36).slice(2)}`;
  const receiver = connection.open_receiver({ source: { address: "$cbs" }, target: { address: replyTo }, name: replyTo });
  await new Promise((resolve) => receiver.once("receiver_open", resolve));
  const reply = new Promise<Message>((resolve) => receiver.once("message", (context: EventContext) => resolve(context.message as Message)));
  const sender = connection.open_sender({ target: { address: "$cbs" } });
  sender.once("sendable", () =>
    sender.send({
      message_id: replyTo,
      reply_to: replyTo,
      application_properties: { operation: "put-token", name: audience, type: "servicebus.windows.net:sastoken" },
      body: token,
    } as Message),
  );
  const answer = await reply;
  sender.close();
  receiver.close();
  return Number((answer.application_properties as Record<string, unknown>)["status-code"]);
}
