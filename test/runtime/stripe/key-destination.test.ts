// A key goes only where it belongs: a live Stripe key to https://api.stripe.com or an https origin the operator
// allows by name, plain http only to loopback with a test key, the vault's account key over https. Checked black box:
// a listener on a loopback port (where a leftover STRIPE_API_BASE points) must never see a request with a live key.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditAccount, TokenBucket } from "../../../runtime/audit/index.js";
import { ConfigurationError } from "../../../runtime/core/errors.js";
import { createStripeClient } from "../../../runtime/stripe/client.js";
import { keyDestinationProblem, keyKind, stripeHostFor } from "../../../runtime/stripe/key-destination.js";
import { KeybrakeKeyProvider } from "../../../runtime/stripe/vault/keybrake-key-provider.js";

// Assembled at run time, so the repository holds no key-shaped literal.
const liveSecret = ["sk", "live", "51LiveSecretKey000"].join("_");
const liveRestricted = ["rk", "live", "51LiveRestricted00"].join("_");
const testKey = ["rk", "test", "sandbox"].join("_");

let listener: Server;
let base: string;
const seen: string[] = [];
beforeAll(async () => {
  listener = createServer((req, res) => {
    seen.push(String(req.headers.authorization));
    res.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[],"has_more":false}');
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
});

describe("keyDestinationProblem", () => {
  it("tells live, test and other keys apart by prefix", () => {
    expect([liveSecret, liveRestricted, testKey, "kb_test_sandbox", "vk_live_x", "hunter2"].map(keyKind)).toEqual(["stripe-live", "stripe-live", "test", "test", "other", "other"]);
  });

  it("classifies a key after the whitespace around it: a live key with a leading space or tab is live (#44)", () => {
    for (const spelling of [` ${liveSecret}`, `\t${liveSecret}`, `${liveSecret} `, `\n ${liveRestricted}\r\n`]) {
      expect(keyKind(spelling)).toBe("stripe-live");
      expect(keyDestinationProblem(spelling, "https://stripe-proxy.example")).toMatch(/a live Stripe key goes only there/);
      expect(keyDestinationProblem(spelling, base)).toMatch(/only a test key/);
    }
    expect(keyKind(` ${testKey}`)).toBe("test");
  });

  it("sends a live key only to api.stripe.com or an allowed https origin", () => {
    expect(keyDestinationProblem(liveRestricted, undefined)).toBeUndefined();
    expect(keyDestinationProblem(liveRestricted, "https://api.stripe.com")).toBeUndefined();
    expect(keyDestinationProblem(liveRestricted, "https://stripe-proxy.example")).toMatch(/STRIPE_API_BASE is not https:\/\/api.stripe.com.*STRIPE_ALLOWED_ORIGINS/);
    expect(keyDestinationProblem(liveRestricted, "https://stripe-proxy.example", { env: { STRIPE_ALLOWED_ORIGINS: "https://stripe-proxy.example/ , https://other.example" } })).toBeUndefined();
    expect(keyDestinationProblem(liveSecret, base)).toMatch(/plain http/);
    expect(keyDestinationProblem(liveSecret, "http://api.stripe.com")).toMatch(/plain http/);
  });

  it("allows plain http only to loopback, and then only with a test key", () => {
    expect(keyDestinationProblem(testKey, base)).toBeUndefined();
    expect(keyDestinationProblem(testKey, "http://[::1]:12111")).toBeUndefined();
    expect(keyDestinationProblem(testKey, "http://10.0.0.5:12111")).toMatch(/not loopback/);
    expect(keyDestinationProblem("kb_account_key", "http://127.0.0.1:4010", { variable: "KEYBRAKE_URL" })).toMatch(/KEYBRAKE_URL uses plain http/);
    expect(keyDestinationProblem("kb_account_key", "https://proxy.keybrake.example", { variable: "KEYBRAKE_URL" })).toBeUndefined();
  });

  it("never repeats the key or the URL's user info in its message", () => {
    const problems = [keyDestinationProblem(liveSecret, "http://user:pa55@127.0.0.1:1"), keyDestinationProblem(liveSecret, "not a url"), keyDestinationProblem(liveSecret, base)];
    for (const problem of problems) {
      expect(problem).toBeDefined();
      expect(problem).not.toContain("51LiveSecretKey");
      expect(problem).not.toContain("pa55");
    }
    expect(() => stripeHostFor(liveSecret, "https://stripe-proxy.example", { allowedOrigins: [] })).toThrow(ConfigurationError);
  });
});

describe("every way to Stripe and the vault refuses before a live key leaves the process", () => {
  it("createStripeClient (the consumer, the reconciler)", () => {
    expect(() => createStripeClient({ apiKey: liveRestricted, apiBase: base, timeoutMs: 1000, maxNetworkRetries: 0 })).toThrow(/plain http/);
    expect(() => createStripeClient({ apiKey: testKey, apiBase: base, timeoutMs: 1000, maxNetworkRetries: 0 })).not.toThrow();
  });

  it("auditAccount", async () => {
    const before = seen.length;
    await expect(auditAccount({ apiKey: liveSecret, apiBase: base, budget: new TokenBucket(100), flows: ["paymentintents"], keyPath: ["metadata", "k"], windowSeconds: 60 })).rejects.toThrow(/plain http/);
    expect(seen.slice(before)).toEqual([]);
  });

  it("the vault's account key: https, or loopback with a test key", async () => {
    expect(() => new KeybrakeKeyProvider({ baseUrl: base, apiKey: "kb_live_account0000" })).toThrow(/KEYBRAKE_URL uses plain http/);
    expect(() => new KeybrakeKeyProvider({ baseUrl: "http://10.1.2.3:4010", apiKey: "kb_test_sandbox" })).toThrow(/not loopback/);
    expect(() => new KeybrakeKeyProvider({ baseUrl: base, apiKey: "kb_test_sandbox" })).not.toThrow();
  });

  it("no request with a live key reached the listener", () => {
    expect(seen.filter((authorization) => authorization.includes("_live_"))).toEqual([]);
  });
});
