// The generated consumer's /live answers whether its receive loop turns, not whether its event loop does: the built
// consumer (dist/examples/generated-consumer, with a queue-budget.json for a short PT30S lock, as `chargeguard new
// consumer --stack` writes one) against the sandbox's Service Bus, through the real SDK. Idle on an empty queue it
// is live; once the broker stops answering, /live turns 503 within the stall threshold (the queue's lock, from the
// tuning) and says why, while the process and its event loop run on.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { startServiceBusEmulator } from "../../sandbox/servicebus/index.js";
import { queueBudgetFile, renderQueueBudget } from "../../templates/queue-budget.js";
import { receiveStallMs, RECEIVE_PROBE_EVERY_MS, tuneQueue, type LatencyBudget } from "../../tuning/index.js";
import { checkout, ensureBuilt } from "../support/generated-project.js";

const queue = "usage-billing";
// 2 s Stripe timeout, no retry, 1 s of processing and margin: a 3 s delivery, the shortest lock tuning writes (PT30S).
const budget: LatencyBudget = { stripe: { timeoutMs: 2_000, maxNetworkRetries: 0 }, processingMs: 500, safetyMarginMs: 500 };
const tuning = tuneQueue(budget);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function live(port: number): Promise<{ status: number; text: string } | undefined> {
  const response = await fetch(`http://127.0.0.1:${port}/live`).catch(() => undefined);
  return response && { status: response.status, text: await response.text() };
}

it("answers /live 503 with the reason once its broker stops answering, and 200 while the receive loop turns", async () => {
  await ensureBuilt();
  expect(tuning.lockDuration).toBe("PT30S");
  const stallMs = receiveStallMs(tuning.lockDurationMs);
  const serviceBus = await startServiceBusEmulator({ queues: { [queue]: { lockDurationMs: tuning.lockDurationMs } } });
  const directory = await mkdtemp(path.join(checkout, "dist", ".liveness-consumer-"));
  const healthPort = await freePort();
  let output = "";
  try {
    await cp(path.join(checkout, "dist", "examples", "generated-consumer", "src"), directory, { recursive: true });
    await writeFile(path.join(directory, "queue-budget.json"), renderQueueBudget(queueBudgetFile(queue, { stack: "liveness", configFile: "Pulumi.liveness.yaml", budget })));
    // No Stripe here on purpose (nothing is charged): STRIPE_START_CHECK=off lets the consumer start without one.
    const consumer = spawn(process.execPath, [path.join(directory, "main.js")], {
      cwd: directory,
      env: {
        PATH: process.env.PATH,
        SERVICEBUS_CONNECTION_STRING: serviceBus.connectionString,
        SERVICEBUS_QUEUE: queue,
        STRIPE_API_KEY: "rk_test_sandbox",
        STRIPE_API_BASE: "http://127.0.0.1:9",
        STRIPE_START_CHECK: "off",
        HEALTH_PORT: String(healthPort),
      },
    });
    consumer.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    consumer.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      const readyBy = Date.now() + 60_000;
      while ((await fetch(`http://127.0.0.1:${healthPort}/ready`).catch(() => undefined))?.status !== 200) {
        if (Date.now() > readyBy || consumer.exitCode !== null) throw new Error(`never ready; output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await live(healthPort)).toEqual({ status: 200, text: "ok\n" });

      await serviceBus.stop();
      const stalledBy = Date.now() + stallMs + 3 * RECEIVE_PROBE_EVERY_MS + 30_000;
      let answer = await live(healthPort);
      while (answer?.status !== 503) {
        if (Date.now() > stalledBy || consumer.exitCode !== null) throw new Error(`/live never failed (last ${JSON.stringify(answer)}); output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        answer = await live(healthPort);
      }
      expect(answer.text).toMatch(/^stalled: the receive loop has not turned for .* \(no message, no answer to a peek\), longer than 30 s\n$/);
      // The process answered all along: an event-loop liveness would still say 200.
      expect(consumer.exitCode).toBeNull();
    } finally {
      consumer.kill("SIGTERM");
      await new Promise((resolve) => (consumer.exitCode === null ? consumer.once("exit", resolve) : resolve(undefined)));
    }
  } finally {
    await serviceBus.stop();
    await rm(directory, { recursive: true, force: true });
  }
}, 180_000);
