// A Stripe client whose timeout and retries fit the queue's lock budget (see chargeguard/tuning), optionally pointed at
// a local or proxy API base such as the sandbox emulator or a Keybrake-compatible vault proxy (where the key may go is
// key-destination.ts's decision).
import type Stripe from "stripe";
import { ConfigurationError } from "../core/errors.js";
import { loadStripe } from "../sdk/load-stripe.js";
import { stripeHostFor } from "./key-destination.js";

export interface StripeClientOptions {
  apiKey: string;
  /** e.g. "http://127.0.0.1:12111"; absent: api.stripe.com */
  apiBase?: string;
  timeoutMs: number;
  maxNetworkRetries: number;
}

export function createStripeClient(options: StripeClientOptions): Stripe {
  if (options.apiKey.length === 0) throw new ConfigurationError("createStripeClient: apiKey is empty");
  if (!Number.isInteger(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new ConfigurationError(`createStripeClient: timeoutMs must be a positive integer, got ${options.timeoutMs}`);
  }
  if (!Number.isInteger(options.maxNetworkRetries) || options.maxNetworkRetries < 0) {
    throw new ConfigurationError(`createStripeClient: maxNetworkRetries must be a non-negative integer, got ${options.maxNetworkRetries}`);
  }
  // The SDK loads here, with the first client (sdk/load-stripe.ts), not when the runtime is imported.
  const StripeClient = loadStripe();
  return new StripeClient(options.apiKey, {
    timeout: options.timeoutMs,
    maxNetworkRetries: options.maxNetworkRetries,
    // The key goes only where it belongs (key-destination.ts): a live key to Stripe or an allowed https origin.
    ...stripeHostFor(options.apiKey, options.apiBase),
  });
}
