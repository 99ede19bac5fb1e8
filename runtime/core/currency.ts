// Currencies: no allow-list (Stripe supports far more than any list we would keep), but the shape Stripe accepts and
// its rules on the smallest unit. `amountCents` is always the amount in the currency's smallest unit, as Stripe's
// `amount`: cents for usd, yen for jpy (zero-decimal), fils for kwd (three-decimal).
// https://docs.stripe.com/currencies#zero-decimal and #three-decimal

/** Stripe's zero-decimal currencies: the amount is in whole units (1000 jpy = ¥1000). */
export const zeroDecimalCurrencies: ReadonlySet<string> = new Set([
  "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "vnd", "vuv", "xaf", "xof", "xpf",
]);

/** Three-decimal currencies: Stripe requires the last digit of the amount to be 0 (whole hundredths). */
export const threeDecimalCurrencies: ReadonlySet<string> = new Set(["bhd", "jod", "kwd", "omr", "tnd"]);

/** Zero-decimal in practice but two-decimal in Stripe's API for compatibility: the amount must be whole units (x100). */
export const wholeUnitTwoDecimalCurrencies: ReadonlySet<string> = new Set(["isk", "ugx"]);

/** A problem with the currency's shape (ISO 4217, three lower-case letters, as Stripe writes it), or undefined. */
export function currencyProblem(currency: string): string | undefined {
  if (!/^[a-z]{3}$/.test(currency)) return `"${currency}" is not a three-letter ISO 4217 code in lower case (e.g. "usd", "eur", "jpy")`;
  return undefined;
}

/** A problem with an amount (smallest unit) in this currency that Stripe would refuse, or undefined. */
export function amountProblem(amount: number, currency: string): string | undefined {
  if (threeDecimalCurrencies.has(currency) && amount % 10 !== 0) {
    return `${amount} is not a valid ${currency} amount: three-decimal currencies must end in 0 (Stripe charges whole hundredths)`;
  }
  if (wholeUnitTwoDecimalCurrencies.has(currency) && amount % 100 !== 0) {
    return `${amount} is not a valid ${currency} amount: Stripe takes ${currency} in hundredths of whole units (a multiple of 100)`;
  }
  return undefined;
}

/** How many minor units make one major unit (for display): 1 for jpy, 1000 for kwd, 100 otherwise. */
export function minorUnitsPerMajor(currency: string): number {
  if (zeroDecimalCurrencies.has(currency)) return 1;
  if (threeDecimalCurrencies.has(currency)) return 1000;
  return 100;
}
