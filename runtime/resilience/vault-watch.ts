// A period's key fetch through the vault's breaker. A refusal (VaultKeyError, a configuration error) is an answer
// and stays one; a fetch that found no vault (timeout, connection refused, 5xx) or a throttled one (429) is the vault
// being degraded: a wait, and sustained, a pause. Throttling counts toward the breaker like an outage: a vault that
// throttles every request is not helped by every in-flight delivery asking again, so intake pauses and one probe asks
// after the vault's Retry-After (Key Vault sends one), then on the breaker's backoff.
import { ChargeguardError } from "../core/errors.js";
import type { VaultKeyProvider } from "../stripe/vault/key-provider.js";
import { VaultThrottledError } from "../stripe/vault/vault-throttled.js";
import type { CircuitBreaker } from "./circuit-breaker.js";
import { DependencyUnavailableError } from "../guard/dependency-fault.js";

export function watchVault(keys: VaultKeyProvider, breaker: CircuitBreaker, onThrottled: () => void = () => {}): VaultKeyProvider {
  return {
    ...(keys.apiBase === undefined ? {} : { apiBase: keys.apiBase }),
    ...(keys.account === undefined ? {} : { account: keys.account }),
    ...(keys.forget === undefined ? {} : { forget: (period: string) => keys.forget?.(period) }),
    async keyFor(billingPeriod, request) {
      breaker.check();
      try {
        const key = await keys.keyFor(billingPeriod, request);
        breaker.succeeded();
        return key;
      } catch (error) {
        if (error instanceof ChargeguardError) throw error;
        const throttled = error instanceof VaultThrottledError;
        if (throttled) onThrottled();
        breaker.failed(error instanceof Error ? error.message : String(error), throttled ? { retryAfterMs: error.retryAfterMs } : {});
        throw new DependencyUnavailableError(
          { dependency: "vault", cause: throttled ? "throttled" : "outage" },
          `the vault is ${throttled ? "throttling" : "unavailable"}: ${error instanceof Error ? error.message : String(error)}`,
          // No key, so no request with it left for Stripe.
          { cause: error, nothingSent: true },
        );
      }
    },
  };
}
