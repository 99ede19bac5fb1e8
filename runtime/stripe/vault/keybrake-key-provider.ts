// Per-period vault keys from a Keybrake-compatible proxy: each key is bound (at the proxy) to the real Stripe key,
// spends the period's one budget (capped at the period's expected total x 1.10 a day, shared by every key of the
// period: refreshes and replicas), allowed only the PaymentIntents endpoint, and expires after the period. The Stripe
// SDK then talks to the proxy with the vault key; the proxy refuses over the cap (429) and outside the allowlist
// (403), see `./vault-refusal.ts`.
import type { KeyRequest, VaultKeyProvider } from "./key-provider.js";
import { systemClock, type Clock } from "../../core/clock.js";
import { accountLabel } from "../account-label.js";
import { ConfigurationError, VaultKeyError } from "../../core/errors.js";
import { assertKeyDestination } from "../key-destination.js";
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
  /**
   * The name of the consumer's budgets at the vault: each period's keys spend `<budgetName>-<period>`; default
   * `chargeguard`. Replicas and refreshes of one consumer must share it (one cap); a second consumer on the same
   * vault account under its own cap (another queue, another flow) names its own, or the two spend one cap.
   */
  budgetName?: string;
}

interface MintedKey {
  key: string;
  /** The vault confirmed the key spends the period's shared budget (it echoed `budget`). */
  sharedBudget: boolean;
}

interface CachedKey {
  key: Promise<MintedKey>;
  /** Fetched at (clock ms): from 80% of the lifetime on a fresh key is fetched in the background. */
  fetchedAt: number;
  /** Not used past this (clock ms). */
  usableUntil: number;
  refreshing: boolean;
  /** Known once the key came: only a key of a shared budget is refreshed (a fresh one spends the same cap). */
  sharedBudget: boolean;
}

/** From this share of a key's lifetime on, a fresh key is fetched in the background (refresh ahead). */
const refreshAheadShare = 0.8;

/** A period the vault can name a key and a budget after: `YYYY-MM`, "unpriced", a custom period such as `2026-W41`. */
const periodName = /^[A-Za-z0-9][\w.-]{0,63}$/;
/** A budget name the vault takes (its budget names are at most 200 of letters, digits and . _ : -), a period appended. */
const budgetNamePattern = /^[A-Za-z0-9][\w.:-]{0,119}$/;

interface CreateKeyResponse {
  vault_key?: unknown;
  budget?: unknown;
}

export class KeybrakeKeyProvider implements VaultKeyProvider {
  readonly apiBase: string;
  /** The Keybrake account (its URL and account key, hashed): one vault account is bound to one Stripe key. */
  readonly account: string;
  readonly #apiKey: string;
  readonly #capMargin: number;
  readonly #graceDays: number;
  readonly #allowedEndpoints: string[];
  readonly #clock: Clock;
  readonly #keys = new Map<string, CachedKey>();
  readonly #lifetimeMs: number;
  readonly #fetchTimeoutMs: number;
  readonly #budgetName: string;

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
    this.account = accountLabel(`keybrake ${url.origin} ${options.apiKey}`);
    this.#apiKey = options.apiKey;
    this.#capMargin = capMargin;
    this.#graceDays = options.graceDays ?? 7;
    this.#allowedEndpoints = options.allowedEndpoints ?? ["/v1/payment_intents"];
    this.#clock = options.clock ?? systemClock;
    this.#lifetimeMs = options.keyLifetimeMs ?? 3_600_000;
    this.#fetchTimeoutMs = options.fetchTimeoutMs ?? 10_000;
    const budgetName = options.budgetName ?? "chargeguard";
    if (!budgetNamePattern.test(budgetName)) {
      throw new ConfigurationError(`KeybrakeKeyProvider: budgetName must be 1-120 letters, digits and . _ : - (starting with a letter or digit), got "${budgetName}"`);
    }
    this.#budgetName = budgetName;
  }

  /**
   * The period's key: cached for its lifetime; past 80% of it a fresh one is fetched in the background while the
   * cached one still serves (a refresh that fails costs no message anything); past its lifetime, fetched now. Every
   * key of a period spends the period's one budget at the vault (`budget: <budgetName>-<period>`), so refreshes and
   * replicas share one cap; a vault that does not confirm the budget gets no refresh (each key would be a whole cap
   * more): the key serves to its expiry. Never throws: every failure is the answer's rejection.
   */
  keyFor(billingPeriod: string, request: KeyRequest): Promise<string> {
    try {
      if (!periodName.test(billingPeriod)) {
        throw new VaultKeyError(`the billing period must be YYYY-MM or a name of letters, digits and . _ - (at most 64), got "${billingPeriod}"`);
      }
      const now = this.#clock.now();
      const cached = this.#keys.get(billingPeriod);
      if (cached && now < cached.usableUntil) {
        const refreshAt = cached.fetchedAt + (cached.usableUntil - cached.fetchedAt) * refreshAheadShare;
        if (cached.sharedBudget && !cached.refreshing && now >= refreshAt) this.#refresh(billingPeriod, request, cached);
        return cached.key.then((minted) => minted.key);
      }
      return this.#fetch(billingPeriod, request).key.then((minted) => minted.key);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  forget(billingPeriod: string): void {
    this.#keys.delete(billingPeriod);
  }

  #fetch(billingPeriod: string, request: KeyRequest): CachedKey {
    const entry = this.#entry(this.#create(billingPeriod, request), billingPeriod);
    this.#keys.set(billingPeriod, entry);
    // A failed creation is not cached: the next message asks again.
    entry.key.catch(() => {
      if (this.#keys.get(billingPeriod) === entry) this.#keys.delete(billingPeriod);
    });
    return entry;
  }

  /** A cache entry for a key on its way: used for the lifetime, or to its expiry when its budget is not shared. */
  #entry(key: Promise<MintedKey>, billingPeriod: string): CachedKey {
    const now = this.#clock.now();
    const expiry = keyExpiry(billingPeriod, this.#graceDays, now).getTime();
    const entry: CachedKey = { key, fetchedAt: now, usableUntil: Math.min(now + this.#lifetimeMs, expiry), refreshing: false, sharedBudget: false };
    key.then(
      (minted) => {
        entry.sharedBudget = minted.sharedBudget;
        if (!minted.sharedBudget) entry.usableUntil = expiry;
      },
      () => undefined,
    );
    return entry;
  }

  #refresh(billingPeriod: string, request: KeyRequest, cached: CachedKey): void {
    cached.refreshing = true;
    const fresh = this.#create(billingPeriod, request);
    fresh.then(
      () => {
        if (this.#keys.get(billingPeriod) === cached) this.#keys.set(billingPeriod, this.#entry(fresh, billingPeriod));
      },
      // The cached key serves on; the next message past the refresh point tries again.
      () => {
        cached.refreshing = false;
      },
    );
  }

  async #create(billingPeriod: string, request: KeyRequest): Promise<MintedKey> {
    if (!Number.isSafeInteger(request.expectedTotalCents) || request.expectedTotalCents <= 0) {
      throw new VaultKeyError(`expectedTotalCents must be a positive integer, got ${request.expectedTotalCents}`);
    }
    const label = `${this.#budgetName}-${billingPeriod}`;
    const body = {
      vendor: "stripe",
      label,
      // One budget per period at the vault, spent by every key minted for it (refreshes, replicas): one cap.
      budget: label,
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
    return { key: parsed.vault_key, sharedBudget: parsed.budget === label };
  }
}

/**
 * When a period's key expires: the grace days after the period's month, or, for a late event of a period already
 * past that, one day from now (a short-lived key for the stragglers). A period that is not a month ("unpriced", a
 * custom period) has no end the vault knows: its keys live one day from minting, refreshed like any other.
 */
export function keyExpiry(billingPeriod: string, graceDays: number, now: number): Date {
  return new Date(Math.max(periodExpiry(billingPeriod, graceDays)?.getTime() ?? 0, now + 86_400_000));
}

/** The first instant after `YYYY-MM`'s month, plus the grace days (UTC); undefined for a period that is not a month. */
export function periodExpiry(billingPeriod: string, graceDays: number): Date | undefined {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(billingPeriod);
  return match ? new Date(Date.UTC(Number(match[1]), Number(match[2]), 1 + graceDays)) : undefined;
}

/** expected x margin in whole cents, rounded up; the rounding to 1e-6 keeps 1000 x 1.1 at 1100, not 1101. */
export function capCents(expectedTotalCents: number, margin: number): number {
  return Math.ceil(Math.round(expectedTotalCents * margin * 1e6) / 1e6);
}
