// Spend caps per (billing period, currency), each in the currency's own minor units: 1,000 JPY and 1,000 US cents
// are different money, so they never share a cap. One rule for every flow's records (guard_records).
import { ConfigurationError } from "../core/errors.js";

/**
 * A cap for every currency (a number, or a function of the period and currency; undefined: no cap), and caps for
 * named currencies that override it (`{ jpy: 700_000, usd: 5_000_000 }`).
 */
export interface SpendCapOptions {
  /** Per billing period and per currency, in that currency's minor units; a number caps each currency separately. */
  periodCapCents?: number | ((billingPeriod: string, currency: string) => number | undefined);
  /** Per currency (lower-case ISO 4217) per billing period, in its minor units; overrides `periodCapCents`. */
  periodCaps?: Readonly<Record<string, number>>;
}

export type SpendCapFor = (billingPeriod: string, currency: string) => number | undefined;

function checkCap(name: string, cap: unknown): void {
  if (typeof cap !== "number" || !Number.isSafeInteger(cap) || cap < 0) {
    throw new ConfigurationError(`${name} must be a non-negative integer in the currency's minor units, got ${JSON.stringify(cap)}`);
  }
}

/** Checks the options once (at open) and answers the cap in force for a (period, currency). */
export function spendCaps(options: SpendCapOptions): SpendCapFor {
  const { periodCapCents, periodCaps } = options;
  if (typeof periodCapCents === "number") checkCap("periodCapCents", periodCapCents);
  else if (periodCapCents !== undefined && typeof periodCapCents !== "function") {
    throw new ConfigurationError("periodCapCents must be a number or a function of (billingPeriod, currency)");
  }
  const perCurrency = new Map<string, number>();
  for (const [currency, cap] of Object.entries(periodCaps ?? {})) {
    if (!/^[a-z]{3}$/.test(currency)) throw new ConfigurationError(`periodCaps: "${currency}" is not a lower-case ISO 4217 currency code`);
    checkCap(`periodCaps.${currency}`, cap);
    perCurrency.set(currency, cap);
  }
  return (billingPeriod, currency) => {
    const named = perCurrency.get(currency);
    if (named !== undefined) return named;
    const cap = typeof periodCapCents === "function" ? periodCapCents(billingPeriod, currency) : periodCapCents;
    if (cap !== undefined) checkCap(`periodCapCents for ${billingPeriod} ${currency}`, cap);
    return cap;
  };
}
