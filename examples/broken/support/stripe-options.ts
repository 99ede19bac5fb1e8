// Turns the harness's Stripe settings into the SDK's client options. Since stripe 22 the API host is set on the
// client only, so a sandbox base URL ("http://127.0.0.1:12111") becomes host, port and protocol.
import type Stripe from "stripe";
import type { StripeSettings } from "../../../runtime/index.js";

export function stripeOptions(settings: StripeSettings): Stripe.StripeConfig {
  const options: Stripe.StripeConfig = {};
  if (settings.timeoutMs !== undefined) options.timeout = settings.timeoutMs;
  if (settings.maxNetworkRetries !== undefined) options.maxNetworkRetries = settings.maxNetworkRetries;
  if (settings.apiBase !== undefined) {
    const base = new URL(settings.apiBase);
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new Error(`stripe.apiBase must be an http(s) URL, got "${settings.apiBase}"`);
    }
    options.host = base.hostname;
    options.protocol = base.protocol === "http:" ? "http" : "https";
    if (base.port !== "") options.port = Number(base.port);
  }
  return options;
}
