// Per-period vault keys from a Keybrake-compatible proxy: each key is bound (at the proxy) to the real Stripe key,
// capped at the period's expected total x 1.10, allowed only the PaymentIntents endpoint, and expires after the
// period. The Stripe SDK then talks to the proxy with the vault key; the proxy refuses over the cap (429) and
// outside the allowlist (403), see `../stripe/create-payment-intent.ts`.
import type { KeyRequest, VaultKeyProvider } from "./key-provider.js";
import { systemClock, type Clock } from "../clock.js";
import { ConfigurationError, VaultKeyError } from "../errors.js";
import { assertKeyDestination } from "../stripe/key-destination.js";
import { retryAfterMs, VaultThrottledError } from "./vault-throttled.js";

export interface KeybrakeKeyProviderOptions {
  /** The proxy's base URL; vault keys are created at `${baseUrl}/vault/keys` and used against `baseUrl`. */
  baseUrl: string;
  /** The Keybrake account's API key (not a Stripe key). */
  apiKey: string;
  /** Cap = expected total x this; default 1.10. */
  capMargin?: number;
  /** Days after the period's month a key stays valid, for late events; default 7. */
  graceDays?: number;
  allowedEndpoints?: string[];
  /** For expiry; default the system clock. */
  clock?: Clock;
  /** How long a fetched key is used before a fresh one is fetched (never past the key's own expiry); default 1 h. */
  keyLifetimeMs?: number;
  /** A fetch that takes longer is abandoned (the vault counts as down); default 10 s. */
  fetchTimeoutMs?: number;
}

interface CachedKey {
  key: Promise<string>;
  /** Fetched at (clock ms): from 80% of the lifetime on a fresh key is fetched in the background. */
  fetchedAt: number;
  /** Not used past this (clock ms). */
  usableUntil: number;
  refreshing: boolean;
}

/** From this share of a key's lifetime on, a fresh key is fetched in the background (refresh ahead). */
const refreshAheadShare = 0.8;

interface CreateKeyResponse {
  vault_key?: unknown;
}

export class KeybrakeKeyProvider implements VaultKeyProvider {
  readonly apiBase: string;
  readonly #apiKey: string;
  readonly #capMargin: number;
  readonly #graceDays: number;
  readonly #allowedEndpoints: string[];
  readonly #clock: Clock;
  readonly #keys = new Map<string, CachedKey>();
  readonly #lifetimeMs: number;
  readonly #fetchTimeoutMs: number;

  constructor(options: KeybrakeKeyProviderOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new ConfigurationError("KeybrakeKeyProvider: baseUrl (KEYBRAKE_URL) must be a URL such as https://proxy.keybrake.com");
    }
    if (options.apiKey.trim() === "") throw new ConfigurationError("KeybrakeKeyProvider: apiKey is empty");
    // The account key mints capped vault keys: it goes over https, or to loopback only when it is a test key.
    assertKeyDestination(options.apiKey, url.origin, { variable: "KEYBRAKE_URL" });
    const capMargin = options.capMargin ?? 1.1;
    if (!(capMargin >= 1)) throw new ConfigurationError(`KeybrakeKeyProvider: capMargin must be >= 1, got ${capMargin}`);
    this.apiBase = url.origin;
    this.#apiKey = options.apiKey;
    this.#capMargin = capMargin;
    this.#graceDays = options.graceDays ?? 7;
    this.#allowedEndpoints = options.allowedEndpoints ?? ["/v1/payment_intents"];
    this.#clock = options.clock ?? systemClock;
    this.#lifetimeMs = options.keyLifetimeMs ?? 3_600_000;
    this.#fetchTimeoutMs = options.fetchTimeoutMs ?? 10_000;
  }

  /**
   * The period's key: cached for its lifetime; past 80% of it a fresh one is fetched in the background while the
   * cached one still serves (a refresh that fails costs no message anything); past its lifetime, fetched now.
   */
  keyFor(billingPeriod: string, request: KeyRequest): Promise<string> {
    const now = this.#clock.now();
    const cached = this.#keys.get(billingPeriod);
    if (cached && now < cached.usableUntil) {
      if (!cached.refreshing && now >= cached.fetchedAt + (cached.usableUntil - cached.fetchedAt) * refreshAheadShare) this.#refresh(billingPeriod, request, cached);
      return cached.key;
    }
    return this.#fetch(billingPeriod, request).key;
  }

  forget(billingPeriod: string): void {
    this.#keys.delete(billingPeriod);
  }

  #fetch(billingPeriod: string, request: KeyRequest): CachedKey {
    const now = this.#clock.now();
    const entry: CachedKey = {
      key: this.#create(billingPeriod, request),
      fetchedAt: now,
      usableUntil: Math.min(now + this.#lifetimeMs, keyExpiry(billingPeriod, this.#graceDays, now).getTime()),
      refreshing: false,
    };
    this.#keys.set(billingPeriod, entry);
    // A failed creation is not cached: the next message asks again.
    entry.key.catch(() => {
      if (this.#keys.get(billingPeriod) === entry) this.#keys.delete(billingPeriod);
    });
    return entry;
  }

  #refresh(billingPeriod: string, request: KeyRequest, cached: CachedKey): void {
    cached.refreshing = true;
    const fresh = this.#create(billingPeriod, request);
    fresh.then(
      () => {
        if (this.#keys.get(billingPeriod) !== cached) return;
        const now = this.#clock.now();
        this.#keys.set(billingPeriod, {
          key: fresh,
          fetchedAt: now,
          usableUntil: Math.min(now + this.#lifetimeMs, keyExpiry(billingPeriod, this.#graceDays, now).getTime()),
          refreshing: false,
        });
      },
      // The cached key serves on; the next message past the refresh point tries again.
      () => {
        cached.refreshing = false;
      },
    );
  }

  async #create(billingPeriod: string, request: KeyRequest): Promise<string> {
    if (!Number.isSafeInteger(request.expectedTotalCents) || request.expectedTotalCents <= 0) {
      throw new VaultKeyError(`expectedTotalCents must be a positive integer, got ${request.expectedTotalCents}`);
    }
    const body = {
      vendor: "stripe",
      label: `chargeguard-${billingPeriod}`,
      daily_usd_cap: capCents(request.expectedTotalCents, this.#capMargin) / 100,
      allowed_endpoints: this.#allowedEndpoints,
      expires_at: keyExpiry(billingPeriod, this.#graceDays, this.#clock.now()).toISOString(),
    };
    // Network failures and 5xx propagate as plain errors: transient, the message is retried later.
    // Abandoned after the timeout: a vault that does not answer is down (a wait), never a hang.
    const response = await fetch(`${this.apiBase}/vault/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.#apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.#fetchTimeoutMs),
    });
    const text = await response.text();
    if (response.status === 429) {
      throw new VaultThrottledError(`Keybrake is throttling key requests (429): ${text.slice(0, 200)}`, { retryAfterMs: retryAfterMs(response.headers.get("retry-after")) });
    }
    if (response.status >= 500) throw new Error(`Keybrake answered ${response.status} creating a vault key: ${text.slice(0, 200)}`);
    if (!response.ok) {
      throw new VaultKeyError(`Keybrake refused to create a vault key for ${billingPeriod} (${response.status}): ${text.slice(0, 200)}`);
    }
    let parsed: CreateKeyResponse;
    try {
      parsed = JSON.parse(text) as CreateKeyResponse;
    } catch {
      throw new VaultKeyError(`Keybrake answered ${response.status} with a body that is not JSON`);
    }
    if (typeof parsed.vault_key !== "string" || parsed.vault_key === "") {
      throw new VaultKeyError("Keybrake's answer has no vault_key");
    }
    return parsed.vault_key;
  }
}

/**
 * When a period's key expires: the grace days after the period's month, or, for a late event of a period already
 * past that, one day from now (a short-lived key for the stragglers).
 */
export function keyExpiry(billingPeriod: string, graceDays: number, now: number): Date {
  return new Date(Math.max(periodExpiry(billingPeriod, graceDays).getTime(), now + 86_400_000));
}

/** The first instant after `YYYY-MM`'s month, plus the grace days (UTC). */
export function periodExpiry(billingPeriod: string, graceDays: number): Date {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(billingPeriod);
  if (!match) throw new VaultKeyError(`billingPeriod must be YYYY-MM, got "${billingPeriod}"`);
  return new Date(Date.UTC(Number(match[1]), Number(match[2]), 1 + graceDays));
}

/** expected x margin in whole cents, rounded up; the rounding to 1e-6 keeps 1000 x 1.1 at 1100, not 1101. */
export function capCents(expectedTotalCents: number, margin: number): number {
  return Math.ceil(Math.round(expectedTotalCents * margin * 1e6) / 1e6);
}
