import { ServiceBusClient, isServiceBusError } from "@azure/service-bus";
import { startServiceBusEmulator, type EmulatedQueueOptions, type ServiceBusEmulator } from "../../../sandbox/index.js";

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
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
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
