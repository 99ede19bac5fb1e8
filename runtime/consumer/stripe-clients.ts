// The consumer's Stripe keys and clients: per-period keys from the vault (or the one key of the environment), and one
// client per key, made once with the consumer's timeout and retries (stripe/stripe-access.ts, as the reconciler's).
import { assertKeyDestination } from "../stripe/key-destination.js";
import { stripeAccess, type StripeAccess } from "../stripe/stripe-access.js";
import { EnvironmentKeyProvider } from "../stripe/vault/environment-key-provider.js";
import type { VaultKeyProvider } from "../stripe/vault/key-provider.js";
import type { AnyConsumerOptions, ResolvedConsumerSettings } from "./consumer-settings.js";

export type StripeClients = Pick<StripeAccess, "keys" | "stripeFor">;

export function stripeClients(options: AnyConsumerOptions, settings: ResolvedConsumerSettings, log: (line: string) => void): StripeClients {
  const keys: VaultKeyProvider = options.keyProvider ?? new EnvironmentKeyProvider({ apiKey: options.stripe.apiKey, warn: log });
  // The environment's one key is known now: refuse a destination it must not go to at start, not at the first message.
  if (options.keyProvider === undefined) assertKeyDestination(options.stripe.apiKey, options.stripe.apiBase);
  return stripeAccess({
    keys,
    timeoutMs: settings.stripeTimeoutMs,
    maxNetworkRetries: settings.stripeRetries,
    ...(options.stripe.apiBase === undefined ? {} : { apiBase: options.stripe.apiBase }),
  });
}
