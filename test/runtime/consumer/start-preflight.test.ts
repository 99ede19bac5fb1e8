// The consumer's start-up checks through the real SDKs: the real @azure/service-bus against the sandbox's Service Bus
// (which checks SAS keys and rights as Azure does) tells a wrong key from a key without Listen, and the consumer with
// the real stripe SDK pointed at a closed 127.0.0.1 port refuses to start, naming the URL, before taking a message.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBillingConsumer } from "../../../runtime/consumer/consumer.js";
import { checkQueueReachable, ConsumerStartError } from "../../../runtime/consumer/servicebus-preflight.js";
import { checkStripeReachable, stripeCheckWanted } from "../../../runtime/consumer/stripe-preflight.js";
import { ConfigurationError } from "../../../runtime/core/errors.js";
import { consumerQueueRights } from "../../../tuning/index.js";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../../sandbox/index.js";

let emulator: ServiceBusEmulator;
const queue = "usage-billing";
beforeAll(async () => {
  emulator = await startServiceBusEmulator({
    queues: { [queue]: {} },
    authorizationRules: { consumer: { rights: consumerQueueRights.sasRights }, sender: { rights: ["Send"] } },
  });
});
afterAll(() => emulator?.stop());

async function refusal(connectionString: string): Promise<Error> {
  const error = await checkQueueReachable(connectionString, queue).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConsumerStartError);
  return error as Error;
}

/** A port nothing listens on: one the OS just gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the Service Bus start check", () => {
  it("names a wrong key as a wrong key, with its rule and namespace, not as missing rights", async () => {
    const good = emulator.connectionStringFor("consumer");
    const wrong = good.replace(/SharedAccessKey=[^;]+/, `SharedAccessKey=${Buffer.alloc(32, 7).toString("base64")}`);
    const { message } = await refusal(wrong);
    expect(message).toMatch(/^Service Bus at 127\.0\.0\.1:\d+ refused the connection string's key for rule consumer: a wrong key, not missing rights \(.*InvalidSignature/);
    expect(message).toContain("check SharedAccessKeyName and SharedAccessKey");
    expect(message).not.toMatch(/lack|claim\(s\) are required to/);
  });

  it("names a key without Listen as missing rights, and the rights the consumer needs", async () => {
    const { message } = await refusal(emulator.connectionStringFor("sender"));
    expect(message).toMatch(/^the credentials for queue "usage-billing" on 127\.0\.0\.1:\d+ lack Listen \(.*'Listen' claim\(s\) are required/);
    expect(message).toContain(`the consumer needs ${consumerQueueRights.sasRights.join(" and ")} on its queue`);
    expect(message).not.toMatch(/wrong key/);
  });

  it("passes the consumer's own rule", async () => {
    await expect(checkQueueReachable(emulator.connectionStringFor("consumer"), queue)).resolves.toBeUndefined();
  });
});

describe("the Stripe start check", () => {
  it("a consumer whose Stripe is a closed port refuses to start (a configuration error: exit 2), naming the URL and the setting", async () => {
    const port = await closedPort();
    const error = await startBillingConsumer({
      serviceBus: { connectionString: emulator.connectionStringFor("consumer"), queueName: queue },
      stripe: { apiKey: "rk_test_sandbox", apiBase: `http://127.0.0.1:${port}`, timeoutMs: 2_000, maxNetworkRetries: 0 },
      inMemory: true,
      checkStripeAtStart: true,
      log: () => {},
    }).then(
      async (consumer) => {
        await consumer.close();
        return undefined;
      },
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConsumerStartError);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(new RegExp(`^cannot reach Stripe at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): check STRIPE_API_BASE and the network`));
    expect((error as Error).message).toContain("nothing was received from the queue");
  });

  it("passes an origin that accepts connections; STRIPE_START_CHECK=off (or the option) skips it", async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      await expect(checkStripeReachable(`http://127.0.0.1:${port}`, "STRIPE_API_BASE")).resolves.toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(stripeCheckWanted(undefined, {})).toBe(true);
    expect(stripeCheckWanted(undefined, { STRIPE_START_CHECK: " OFF " })).toBe(false);
    expect(stripeCheckWanted(true, { STRIPE_START_CHECK: "off" })).toBe(true);
  });
});
