// `chargeguard sandbox send` reports what the consumer did with its message (charged with the Stripe object, already
// billed, dead-lettered with the reason, not picked up), and refuses a missing queue before creating anything at
// Stripe. Real SDKs: a running billing consumer on the Service Bus emulator, the Stripe emulator.
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { register } from "../../cli/commands/sandbox.js";
import { exitCodeFor, exitCodes } from "../../cli/exit-codes.js";
import { startBillingConsumer } from "../../runtime/consumer/consumer.js";
import type { RunningConsumer } from "../../runtime/consumer/consumer-contract.js";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../sandbox/servicebus/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";

let serviceBus: ServiceBusEmulator;
let stripe: StripeEmulator;
let consumer: RunningConsumer;

beforeAll(async () => {
  serviceBus = await startServiceBusEmulator({ queues: { "usage-billing": { lockDurationMs: 5_000 }, idle: {} } });
  stripe = await startStripeEmulator({});
  consumer = await startBillingConsumer({
    inMemory: true,
    serviceBus: { connectionString: serviceBus.connectionString, queueName: "usage-billing" },
    stripe: { apiKey: "rk_test_sandbox", apiBase: stripe.apiBase, timeoutMs: 2_000, maxNetworkRetries: 0 },
    log: () => undefined,
  });
  vi.stubEnv("SERVICEBUS_CONNECTION_STRING", serviceBus.connectionString);
  vi.stubEnv("SERVICEBUS_QUEUE", "usage-billing");
  vi.stubEnv("STRIPE_API_BASE", stripe.apiBase);
  vi.stubEnv("STRIPE_API_KEY", "rk_test_sandbox");
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await consumer?.close();
  await serviceBus?.stop();
  await stripe?.stop();
});

/** Runs `chargeguard sandbox send ...` in this process: its stdout (the event) and stderr lines, and the exit code. */
async function send(...args: string[]): Promise<{ event: { stripeCustomerId: string }; said: string[]; exitCode: number }> {
  const program = new Command("chargeguard").exitOverride();
  register(program);
  const said: string[] = [];
  const printed: string[] = [];
  const error = vi.spyOn(console, "error").mockImplementation((line: string) => void said.push(line));
  const log = vi.spyOn(console, "log").mockImplementation((line: string) => void printed.push(line));
  process.exitCode = 0;
  try {
    await program.parseAsync(["node", "chargeguard", "sandbox", "send", ...args]);
  } finally {
    error.mockRestore();
    log.mockRestore();
  }
  const exitCode = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { event: JSON.parse(printed[0] ?? "{}") as { stripeCustomerId: string }, said, exitCode };
}

describe("chargeguard sandbox send", () => {
  it("says the consumer charged it, with the PaymentIntent; the same event again is already billed", async () => {
    const first = await send("--customer", "acme-1", "--period", "2026-11");
    expect(first.said[1]).toMatch(/^chargeguard sandbox send: the consumer charged it: pi_\w+ \(succeeded, 2500 usd\)$/);
    expect(first.exitCode).toBe(0);
    const again = await send("--customer", "acme-1", "--period", "2026-11", "--stripe-customer", first.event.stripeCustomerId);
    expect(again.said[1]).toBe("chargeguard sandbox send: the consumer found it already billed: no new Stripe object (the same identity was billed before)");
    expect(again.exitCode).toBe(0);
  });

  it("says the consumer dead-lettered it and why (exit 1): the same customer and month with another amount", async () => {
    const first = await send("--customer", "acme-2", "--period", "2026-11");
    const other = await send("--customer", "acme-2", "--period", "2026-11", "--stripe-customer", first.event.stripeCustomerId, "--amount-cents", "2600");
    expect(other.said[1]).toMatch(/^chargeguard sandbox send: the consumer dead-lettered it: BillingRecordMismatch: .*amount 2500 -> 2600.* \(chargeguard dlq peek lists it\)$/);
    expect(other.exitCode).toBe(1);
  });

  it("says when no consumer picked it up within the wait (exit 1)", async () => {
    const idle = await send("--queue", "idle", "--wait-ms", "1000");
    expect(idle.said[1]).toMatch(/^chargeguard sandbox send: not picked up within \d+ s: it is still on idle; is the consumer running \(npm start\) on this queue\?$/);
    expect(idle.exitCode).toBe(1);
  });

  it("refuses a queue the sandbox does not have before creating anything at Stripe (exit 2)", async () => {
    let customersCreated = 0;
    const watch = stripe.faults.inject({ method: "POST", path: "/v1/customers", action: "latency", ms: 0, when: () => (customersCreated++, false) });
    const error = await send("--queue", "nope").catch((caught: unknown) => caught);
    watch.remove();
    expect((error as Error).message).toMatch(/^queue nope does not exist on sb:\/\/127\.0\.0\.1:\d+\/?: send to the queue the sandbox made \(SERVICEBUS_QUEUE in sandbox\.env\), or start it with --queue nope; nothing was created at Stripe$/);
    expect(await exitCodeFor(error)).toBe(exitCodes.usage);
    expect(customersCreated).toBe(0);
  });
});
