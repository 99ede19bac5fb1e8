// Stripe emulator throughput through the real SDK: PaymentIntents created and confirmed with idempotency keys.
// `bench/sandbox.ts` reports it next to Service Bus throughput (`npm run bench:sandbox`); run alone:
// `node dist/bench/stripe.js`.
import { Agent } from "node:http";
import { pathToFileURL } from "node:url";
import Stripe from "stripe";
import { startStripeEmulator } from "../sandbox/index.js";

export interface StripeBenchOptions {
  /** PaymentIntents to create (default 5000). */
  requests?: number;
  /** Calls in flight at once (default 32). */
  concurrency?: number;
}

export interface StripeBenchResult {
  requests: number;
  seconds: number;
  perSecond: number;
}

export async function measureStripeRequests(options: StripeBenchOptions = {}): Promise<StripeBenchResult> {
  const requests = options.requests ?? 5000;
  const concurrency = options.concurrency ?? 32;
  if (!Number.isInteger(requests) || requests < 1) throw new RangeError(`requests must be a positive integer, got ${requests}`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const emulator = await startStripeEmulator();
  // One keep-alive socket per worker, as a busy consumer holds them.
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const stripe = new Stripe("rk_test_sandbox", {
      ...emulator.stripeConfig,
      httpClient: Stripe.createNodeHttpClient(agent),
      maxNetworkRetries: 0,
      telemetry: false,
    });
    const customer = await stripe.customers.create({ description: "bench" });
    let next = 0;
    const worker = async () => {
      while (next < requests) {
        const index = next++;
        const intent = await stripe.paymentIntents.create(
          {
            amount: 1000 + (index % 100),
            currency: "usd",
            customer: customer.id,
            payment_method: "pm_card_visa",
            confirm: true,
            off_session: true,
            metadata: { billing_period: "2026-10", event: String(index) },
          },
          { idempotencyKey: `bench-${index}` },
        );
        if (intent.status !== "succeeded") throw new Error(`bench PaymentIntent ${intent.id} ended ${intent.status}`);
      }
    };
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const created = emulator.ledger.paymentIntents(customer.id).length;
    if (created !== requests) throw new Error(`bench created ${created} PaymentIntents for ${requests} requests`);
    return { requests, seconds, perSecond: requests / seconds };
  } finally {
    agent.destroy();
    await emulator.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await measureStripeRequests();
  console.log(`Stripe emulator: ${result.requests} PaymentIntents in ${result.seconds.toFixed(2)} s = ${Math.round(result.perSecond)} requests/s (real SDK, concurrency 32, idempotency keys)`);
}
