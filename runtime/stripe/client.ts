// A Stripe client whose timeout and retries fit the queue's lock budget (see chargeguard/tuning), optionally pointed at
// a local or proxy API base such as the sandbox emulator or a Keybrake-compatible vault proxy.
import Stripe from "stripe";
import { ConfigurationError } from "../errors.js";

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
  return new Stripe(options.apiKey, {
    timeout: options.timeoutMs,
    maxNetworkRetries: options.maxNetworkRetries,
    ...(options.apiBase === undefined ? {} : parseApiBase(options.apiBase)),
  });
}

/** `http://127.0.0.1:12111` -> `{ host, port, protocol }` as the SDK wants them (since v22 host is client-only). */
export function parseApiBase(apiBase: string): { host: string; port: number; protocol: "http" | "https" } {
  let url: URL;
  try {
    url = new URL(apiBase);
  } catch {
    throw new ConfigurationError(`STRIPE_API_BASE must be a URL such as http://127.0.0.1:12111, got "${apiBase}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigurationError(`STRIPE_API_BASE must use http or https, got "${url.protocol}"`);
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    throw new ConfigurationError(`STRIPE_API_BASE must be an origin without a path, got "${apiBase}"`);
  }
  const protocol = url.protocol === "http:" ? "http" : "https";
  const port = url.port === "" ? (protocol === "http" ? 80 : 443) : Number(url.port);
  return { host: url.hostname, port, protocol };
}
