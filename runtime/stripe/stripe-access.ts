// The one way to Stripe: the billing period's key from the vault key provider (a Keybrake vault key, capped at the
// period's expected total, or the environment's restricted key), and one client per key against the provider's API
// base (the vault proxy, which enforces the key's cap and allowlist). The consumer and the reconciler both charge
// through it, so a reconciler run cannot spend past the vault's cap with a key of its own. Clients are kept for the
// keys in use, the least recently used dropped past a bound: vault keys rotate (each hour per period), and a client
// per key kept forever (about 45 KB each) grew without end.
import type Stripe from "stripe";
import type { KeyRequest, VaultKeyProvider } from "./vault/key-provider.js";
import { createStripeClient } from "./client.js";

export interface StripeAccess {
  /** The key provider: per-period keys, cached by the provider. */
  readonly keys: VaultKeyProvider;
  /** The client for a key, made once per key while the key is in use (the last `maxCachedClients` keys used). */
  stripeFor(apiKey: string): Stripe;
  /** Clients held now (at most `maxCachedClients`). */
  cachedClients(): number;
  /** The client whose key may spend for `billingPeriod` (the vault sizes its cap from `expectedTotalCents`). */
  forPeriod(billingPeriod: string, request: KeyRequest): Promise<Stripe>;
}

export interface StripeAccessOptions {
  keys: VaultKeyProvider;
  /** Used when the provider names no API base of its own; absent: api.stripe.com. */
  apiBase?: string;
  timeoutMs: number;
  maxNetworkRetries: number;
}

/**
 * Clients kept: a few periods' current keys (the month, a late one, "unpriced") and the keys they just rotated from,
 * whose deliveries may still be in flight. A dropped client still serves the calls that hold it.
 */
export const maxCachedClients = 8;

export function stripeAccess(options: StripeAccessOptions): StripeAccess {
  const { keys } = options;
  const apiBase = keys.apiBase ?? options.apiBase;
  const clients = new Map<string, Stripe>();
  const stripeFor = (apiKey: string): Stripe => {
    let client = clients.get(apiKey);
    if (client) {
      // Most recently used last: the first in the map is the one to drop.
      clients.delete(apiKey);
    } else {
      client = createStripeClient({
        apiKey,
        timeoutMs: options.timeoutMs,
        maxNetworkRetries: options.maxNetworkRetries,
        ...(apiBase === undefined ? {} : { apiBase }),
      });
    }
    clients.set(apiKey, client);
    for (const stale of clients.keys()) {
      if (clients.size <= maxCachedClients) break;
      clients.delete(stale);
    }
    return client;
  };
  return {
    keys,
    stripeFor,
    cachedClients: () => clients.size,
    forPeriod: async (billingPeriod, request) => stripeFor(await keys.keyFor(billingPeriod, request)),
  };
}
