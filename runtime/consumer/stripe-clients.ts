// The consumer's Stripe keys and clients: per-period keys from the vault (or the one key of the environment), and one
// client per key, made once with the consumer's timeout and retries.
import type Stripe from "stripe";
import { createStripeClient } from "../stripe/client.js";
import { EnvironmentKeyProvider } from "../vault/environment-key-provider.js";
import type { VaultKeyProvider } from "../vault/key-provider.js";
import type { AnyConsumerOptions, ConsumerSettings } from "./consumer-settings.js";

export interface StripeClients {
  keys: VaultKeyProvider;
  /** The client for a key, cached: one per key. */
  stripeFor(apiKey: string): Stripe;
}

export function stripeClients(options: AnyConsumerOptions, settings: ConsumerSettings, log: (line: string) => void): StripeClients {
  const keys: VaultKeyProvider = options.keyProvider ?? new EnvironmentKeyProvider({ apiKey: options.stripe.apiKey, warn: log });
  const apiBase = keys.apiBase ?? options.stripe.apiBase;
  const clients = new Map<string, Stripe>();
  const stripeFor = (apiKey: string): Stripe => {
    let client = clients.get(apiKey);
    if (!client) {
      client = createStripeClient({
        apiKey,
        timeoutMs: settings.stripeTimeoutMs,
        maxNetworkRetries: settings.stripeRetries,
        ...(apiBase === undefined ? {} : { apiBase }),
      });
      clients.set(apiKey, client);
    }
    return client;
  };
  return { keys, stripeFor };
}
