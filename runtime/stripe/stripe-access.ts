// The one way to Stripe: the billing period's key from the vault key provider (a Keybrake vault key, capped at the
// period's expected total, or the environment's restricted key), and one client per key against the provider's API
// base (the vault proxy, which enforces the key's cap and allowlist). The consumer and the reconciler both charge
// through it, so a reconciler run cannot spend past the vault's cap with a key of its own.
import type Stripe from "stripe";
import type { KeyRequest, VaultKeyProvider } from "../vault/key-provider.js";
import { createStripeClient } from "./client.js";

export interface StripeAccess {
  /** The key provider: per-period keys, cached by the provider. */
  readonly keys: VaultKeyProvider;
  /** The client for a key, made once per key. */
  stripeFor(apiKey: string): Stripe;
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

export function stripeAccess(options: StripeAccessOptions): StripeAccess {
  const { keys } = options;
  const apiBase = keys.apiBase ?? options.apiBase;
  const clients = new Map<string, Stripe>();
  const stripeFor = (apiKey: string): Stripe => {
    let client = clients.get(apiKey);
    if (!client) {
      client = createStripeClient({
        apiKey,
        timeoutMs: options.timeoutMs,
        maxNetworkRetries: options.maxNetworkRetries,
        ...(apiBase === undefined ? {} : { apiBase }),
      });
      clients.set(apiKey, client);
    }
    return client;
  };
  return {
    keys,
    stripeFor,
    forPeriod: async (billingPeriod, request) => stripeFor(await keys.keyFor(billingPeriod, request)),
  };
}
