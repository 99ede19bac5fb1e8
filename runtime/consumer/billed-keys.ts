// The period the consumer bills now. Probes (a paused intake's key probe, the Stripe and vault breakers') must ask
// with the key billing uses: the vault's key for the period last billed, not the environment's plain key (which a
// vault refuses) and not the calendar month's (a consumer billing in arrears forecasts nothing for it).
import type { KeyRequest, VaultKeyProvider } from "../stripe/vault/key-provider.js";
import type { AnyConsumerOptions } from "./consumer-settings.js";

export interface BilledKeys extends VaultKeyProvider {
  /** The key for the period last asked for by billing (`fallback` before any billing), as billing would get it. */
  billedKey(fallback: { period: string; request: KeyRequest }): Promise<string>;
}

/** Wraps the consumer's key provider, remembering the last period (and its request) billing asked a key for. */
export function trackBilledPeriod(keys: VaultKeyProvider): BilledKeys {
  let last: { period: string; request: KeyRequest } | undefined;
  return {
    ...(keys.apiBase === undefined ? {} : { apiBase: keys.apiBase }),
    ...(keys.account === undefined ? {} : { account: keys.account }),
    ...(keys.forget === undefined ? {} : { forget: (period: string) => keys.forget?.(period) }),
    keyFor(period, request) {
      last = { period, request };
      return keys.keyFor(period, request);
    },
    billedKey(fallback) {
      const { period, request } = last ?? fallback;
      return keys.keyFor(period, request);
    },
  };
}

/** Before any billing: the calendar month, its key sized by the consumer's expected total. */
export function calendarBilling(options: Pick<AnyConsumerOptions, "expectedPeriodTotalCents" | "periodCapCents">): { period: string; request: KeyRequest } {
  const period = new Date().toISOString().slice(0, 7);
  const expected = options.expectedPeriodTotalCents ?? options.periodCapCents;
  return { period, request: { expectedTotalCents: typeof expected === "function" ? expected(period) : (expected ?? 1) } };
}
