// A Stripe emulator in a worker thread holding an account of `payments` succeeded PaymentIntents (1% of them charged
// twice with the same key), seeded through the real SDK: the account `bench/audit.ts` audits, kept out of the
// auditing thread's heap so that thread's memory is the audit's alone.
import { Agent } from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import Stripe from "stripe";
import { startStripeEmulator } from "../sandbox/index.js";

const { payments, customers } = workerData as { payments: number; customers: number };
const emulator = await startStripeEmulator();
const agent = new Agent({ keepAlive: true, maxSockets: 32 });
const stripe = new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, httpClient: Stripe.createNodeHttpClient(agent), maxNetworkRetries: 0, telemetry: false });
const customerIds: string[] = [];
for (let index = 0; index < customers; index++) customerIds.push((await stripe.customers.create({})).id);

let next = 0;
let duplicates = 0;
const pay = (index: number, attempt: number) =>
  stripe.paymentIntents.create(
    {
      amount: 500 + (index % 997),
      currency: "usd",
      customer: customerIds[index % customers] as string,
      payment_method: "pm_card_visa",
      confirm: true,
      off_session: true,
      metadata: { usage_id: `u-${index}` },
    },
    { idempotencyKey: `seed-${index}-${attempt}` },
  );
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < payments) {
      const index = next++;
      await pay(index, 0);
      if (index % 100 === 7) {
        await pay(index, 1);
        duplicates++;
      }
    }
  }),
);
agent.destroy();
parentPort?.postMessage({ apiBase: emulator.apiBase, duplicates });
parentPort?.once("message", () => {
  void emulator.stop().then(() => process.exit(0));
});
