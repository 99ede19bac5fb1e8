import Stripe from "stripe";
import type { StripeEmulator } from "../../../sandbox/stripe/index.js";

/** The real SDK pointed at the emulator; retries off unless a test asks for them, so each call is one request. */
export function stripeFor(emulator: Pick<StripeEmulator, "stripeConfig">, settings: { maxNetworkRetries?: number; timeout?: number } = {}): Stripe {
  return new Stripe("rk_test_sandbox", {
    ...emulator.stripeConfig,
    maxNetworkRetries: settings.maxNetworkRetries ?? 0,
    timeout: settings.timeout ?? 10_000,
  });
}
