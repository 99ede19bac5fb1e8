import Stripe from "stripe";
import { expect, it } from "vitest";
import { startStripeEmulator } from "../../../sandbox/stripe/index.js";
import { stripeFor } from "./client.js";

// Alone in its file (its own worker), so the sockets counted before and after are this emulator's alone.
it("stop() closes hung and held connections, runs nothing held back, and leaves no sockets", async () => {
  const sockets = () => process.getActiveResourcesInfo().filter((kind) => kind === "TCPServerWrap" || kind === "TCPSocketWrap").length;
  const socketsBefore = sockets();
  const own = await startStripeEmulator();
  const hang = own.faults.inject({ path: "/v1/customers", action: "commitThenHang" });
  const latency = own.faults.inject({ path: "/v1/payment_intents", action: "latency", ms: 300 });
  const client = stripeFor(own, { timeout: 30_000 });
  const hung = client.customers.create({}).catch((e: unknown) => e);
  const held = client.paymentIntents.create({ amount: 100, currency: "usd" }).catch((e: unknown) => e);
  while (hang.hits === 0 || latency.hits === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  await own.stop();
  // Cut by stop(), not ended by the client's own 30 s timeout.
  for (const error of [await hung, await held]) {
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect((error as Error).message).not.toContain("timeout");
  }
  // Past the latency: a request still held when the emulator stopped must not have executed.
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(own.ledger.paymentIntents()).toHaveLength(0);
  expect(sockets()).toBe(socketsBefore);
});
