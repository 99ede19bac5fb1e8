// Where the Stripe key for a billing period comes from. One key per period, so a period's key can carry a spend
// cap sized to that period's expected total, and a leaked key stops working when its period is over.

export interface KeyRequest {
  /** What the period is expected to bill in total, in the smallest currency unit: sizes the key's cap. */
  expectedTotalCents: number;
}

export interface VaultKeyProvider {
  /** The API base the keys work against when it is not Stripe's own (a vault proxy), e.g. `http://127.0.0.1:4010`. */
  readonly apiBase?: string;
  /**
   * Which Stripe account the keys spend on, as a label that is not a secret (accountLabel: a hash): the fleet's
   * Stripe budget is kept per account. Absent: the consumer's own Stripe key (or API base) names it.
   */
  readonly account?: string;
  /** The Stripe API key to use for charges of `billingPeriod` (`YYYY-MM`). Implementations cache per period. */
  keyFor(billingPeriod: string, request: KeyRequest): Promise<string>;
  /** The vault refused the period's key (expired, unknown): drop it, so the next `keyFor` fetches a fresh one. */
  forget?(billingPeriod: string): void;
}
