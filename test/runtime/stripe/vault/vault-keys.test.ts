// Vault keys through degradation: a cached key's lifetime and refresh ahead (against the Keybrake stand-in), a
// fetch that never answers times out, a 429 is throttling (a wait, not a refusal), a key the vault refuses is
// fetched again once, and a past period whose key stays refused fails only that period's events.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VaultKeyError } from "../../../../runtime/core/errors.js";
import { CircuitBreaker } from "../../../../runtime/resilience/circuit-breaker.js";
import { DependencyUnavailableError } from "../../../../runtime/guard/dependency-fault.js";
import { PastPeriodKeyRefused, withPeriodKey } from "../../../../runtime/stripe/vault/period-key.js";
import { watchVault } from "../../../../runtime/resilience/vault-watch.js";
import { KeybrakeKeyProvider } from "../../../../runtime/stripe/vault/keybrake-key-provider.js";
import { VaultThrottledError } from "../../../../runtime/stripe/vault/vault-throttled.js";
import { AdjustableClock } from "../../../../sandbox/clock.js";
import { startKeybrakeEmulator, type KeybrakeEmulator } from "../../../../sandbox/keybrake/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../../sandbox/stripe/index.js";

let stripe: StripeEmulator;
let keybrake: KeybrakeEmulator;
const clock = new AdjustableClock();
/** A vault that answers what the test says: 429, or nothing at all. */
let odd: Server;
let oddAnswer: "throttle" | "hang" = "throttle";

beforeAll(async () => {
  stripe = await startStripeEmulator();
  keybrake = await startKeybrakeEmulator({ stripeApiBase: stripe.apiBase, clock });
  odd = createServer((_req, res) => {
    if (oddAnswer === "hang") return;
    res.writeHead(429, { "content-type": "application/json", "retry-after": "2" }).end(JSON.stringify({ error: { type: "rate_limit", message: "slow down" } }));
  });
  await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", () => resolve()));
});
afterAll(async () => {
  odd.closeAllConnections();
  await new Promise<void>((resolve) => odd.close(() => resolve()));
  await keybrake?.stop();
  await stripe?.stop();
});

const oddUrl = () => `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
const request = { expectedTotalCents: 10_000 };
const current = new Date().toISOString().slice(0, 7);
const past = "2025-01";

describe("vault keys", () => {
  it("a key serves for its lifetime; from 80% of it a fresh one is fetched in the background; past it, fetched now", async () => {
    const provider = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock, keyLifetimeMs: 60_000 });
    const first = await provider.keyFor(current, request);
    clock.advance(30_000);
    expect(await provider.keyFor(current, request)).toBe(first);
    clock.advance(20_000); // 50 s of 60: refresh ahead, the cached key answers meanwhile
    expect(await provider.keyFor(current, request)).toBe(first);
    await expect.poll(() => provider.keyFor(current, request)).not.toBe(first);
    const second = await provider.keyFor(current, request);
    clock.advance(61_000);
    const third = await provider.keyFor(current, request);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(keybrake.keys().filter((key) => key.label === `chargeguard-${current}`)).toHaveLength(3);
  });

  it("a 429 is VaultThrottledError with the vault's Retry-After; through the vault's watch a throttled wait", async () => {
    oddAnswer = "throttle";
    const provider = new KeybrakeKeyProvider({ baseUrl: oddUrl(), apiKey: "kb_test" });
    const direct = await provider.keyFor(current, request).catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(VaultThrottledError);
    expect((direct as VaultThrottledError).retryAfterMs).toBe(2_000);
    let throttledSeen = 0;
    const breaker = new CircuitBreaker({ dependency: "vault", probe: async () => {}, failureThreshold: 3 });
    const error = await watchVault(provider, breaker, () => (throttledSeen += 1)).keyFor(current, request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).fault).toEqual({ dependency: "vault", cause: "throttled" });
    expect(throttledSeen).toBe(1);
    // One 429 is a wait for that delivery, not a pause.
    expect(breaker.state).toBe("closed");
    breaker.close();
  });

  it("a vault that keeps throttling pauses intake: 429s in a row open the breaker, whose first probe waits out Retry-After", async () => {
    oddAnswer = "throttle";
    const provider = new KeybrakeKeyProvider({ baseUrl: oddUrl(), apiKey: "kb_test" });
    const probedAt: number[] = [];
    const changes: string[] = [];
    const breaker = new CircuitBreaker({
      dependency: "vault",
      probe: async () => void probedAt.push(performance.now()),
      failureThreshold: 3,
      firstProbeDelayMs: 100,
      onChange: (state) => changes.push(state),
    });
    const watched = watchVault(provider, breaker);
    for (let i = 0; i < 3; i += 1) await watched.keyFor(current, request).catch(() => undefined);
    const openedAt = performance.now();
    expect(breaker.state).toBe("open");
    // While open nothing reaches the vault: the next delivery fails fast, as a wait.
    const fast = await watched.keyFor(current, request).catch((e: unknown) => e);
    expect((fast as DependencyUnavailableError).fault.dependency).toBe("vault");
    await expect.poll(() => breaker.state, { timeout: 5_000 }).toBe("closed");
    expect(changes).toEqual(["open", "closed"]);
    // Retry-After: 2 s, never sooner (the breaker alone would probe after 50-100 ms).
    expect((probedAt[0] as number) - openedAt).toBeGreaterThanOrEqual(1_950);
    breaker.close();
  });

  it("a vault that never answers: the fetch times out, an outage that opens the vault's breaker", async () => {
    oddAnswer = "hang";
    const provider = new KeybrakeKeyProvider({ baseUrl: oddUrl(), apiKey: "kb_test", fetchTimeoutMs: 300 });
    const breaker = new CircuitBreaker({ dependency: "vault", probe: () => Promise.reject(new Error("down")), failureThreshold: 1, firstProbeDelayMs: 60_000 });
    const started = performance.now();
    const error = await watchVault(provider, breaker).keyFor(current, request).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((error as DependencyUnavailableError).fault).toEqual({ dependency: "vault", cause: "outage" });
    expect(breaker.state).toBe("open");
    breaker.close();
  });

  it("a refused key is fetched again once; a past period still refused fails that period only", async () => {
    const provider = new KeybrakeKeyProvider({ baseUrl: keybrake.baseUrl, apiKey: keybrake.apiKey, clock });
    const used: string[] = [];
    let refuse = 1;
    const work = async (key: string) => {
      used.push(key);
      if (refuse-- > 0) throw new VaultKeyError("vault key: vault key expired");
      return "charged";
    };
    await expect(withPeriodKey(provider, current, request, work, clock.now())).resolves.toBe("charged");
    expect(used).toHaveLength(2);
    expect(used[0]).not.toBe(used[1]);
    refuse = 2;
    await expect(withPeriodKey(provider, past, request, work, clock.now())).rejects.toBeInstanceOf(PastPeriodKeyRefused);
    refuse = 2;
    await expect(withPeriodKey(provider, current, request, work, clock.now())).rejects.toBeInstanceOf(VaultKeyError);
  });
});
