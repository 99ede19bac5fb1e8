// Where a key may be sent: the one decision every Stripe client and every vault call goes through. A key in an
// Authorization header goes to whoever answers at the origin, so a leftover STRIPE_API_BASE (the sandbox's loopback
// port, which anyone on a shared host can bind once the sandbox exits) or a mistyped proxy URL would hand the key over.
// - A live Stripe key (sk_live_, rk_live_) goes only to https://api.stripe.com or an https origin the operator names
//   in STRIPE_ALLOWED_ORIGINS (comma-separated; e.g. a vault proxy fronting Stripe).
// - A test key (<prefix>_test_...) may also go to another https origin, and over plain http to loopback only.
// - Any other key (a vault proxy's account key, a vault key): https only (TLS proves the host the operator named).
// Errors name the variable and the problem, never the key or the URL's user info.
import { ConfigurationError } from "../core/errors.js";
import { isLoopbackHost } from "../core/loopback-host.js";
import { processEnvironment, runtimeEnvironment, type Environment } from "../core/environment.js";
import { stripeKeyText } from "../core/text/secret-syntax.js";

export const STRIPE_API_ORIGIN = "https://api.stripe.com";

export type KeyKind = "stripe-live" | "test" | "other";

export interface KeyDestinationOptions {
  /** The variable or option the origin came from, named in errors; default "STRIPE_API_BASE". */
  variable?: string;
  /** Origins a live Stripe key may also go to; default STRIPE_ALLOWED_ORIGINS from `env`. */
  allowedOrigins?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

export interface StripeHost {
  host: string;
  port: number;
  protocol: "http" | "https";
}

/**
 * What a key is, by its prefix only, after the whitespace around it (`" sk_live_..."` is a live key). Anything
 * unrecognised is "other": https only, never plain http.
 */
export function keyKind(key: string): KeyKind {
  const text = stripeKeyText(key);
  if (/^(sk|rk)_live_/.test(text)) return "stripe-live";
  if (/^[a-z]{2,8}_test(_|$)/.test(text)) return "test";
  return "other";
}

/** A live secret key (sk_live_: every right on the account), whitespace around it or not. */
export function isLiveSecretKey(key: string): boolean {
  return stripeKeyText(key).startsWith("sk_live_");
}

/** STRIPE_ALLOWED_ORIGINS, each entry normalised to its origin; a malformed entry is a ConfigurationError. */
export function allowedOrigins(env: Environment = processEnvironment()): string[] {
  const raw = runtimeEnvironment(env).stripeAllowedOrigins;
  if (raw === "") return [];
  return raw.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "").map((entry) => {
    const url = parseOrigin(entry, "STRIPE_ALLOWED_ORIGINS");
    if (url.protocol !== "https:") throw new ConfigurationError("STRIPE_ALLOWED_ORIGINS may list https origins only");
    return url.origin;
  });
}

/** Why `key` must not go to `origin`, or undefined when it may. The message names `variable`, never the key. */
export function keyDestinationProblem(key: string, origin: string | undefined, options: KeyDestinationOptions = {}): string | undefined {
  if (origin === undefined) return undefined;
  const variable = options.variable ?? "STRIPE_API_BASE";
  let url: URL;
  try {
    url = parseOrigin(origin, variable);
  } catch (error) {
    return (error as Error).message;
  }
  const kind = keyKind(key);
  if (url.protocol === "http:") {
    if (!isLoopbackHost(url.hostname)) return `${variable} uses plain http to a host that is not loopback: keys travel over https only`;
    if (kind !== "test") return `${variable} uses plain http: only a test key (..._test_...) may go over http, and only to loopback`;
    return undefined;
  }
  if (kind !== "stripe-live" || url.origin === STRIPE_API_ORIGIN) return undefined;
  const allowed = options.allowedOrigins ?? allowedOrigins(options.env);
  if (allowed.includes(url.origin)) return undefined;
  return `${variable} is not ${STRIPE_API_ORIGIN}: a live Stripe key goes only there or to an origin listed in STRIPE_ALLOWED_ORIGINS`;
}

/** Throws a ConfigurationError when `key` must not go to `origin`. */
export function assertKeyDestination(key: string, origin: string | undefined, options: KeyDestinationOptions = {}): void {
  const problem = keyDestinationProblem(key, origin, options);
  if (problem !== undefined) throw new ConfigurationError(problem);
}

/**
 * The Stripe SDK's `{ host, port, protocol }` for a key and an API base (since v22 the host is client-only), after
 * checking the key may go there; `{}` (api.stripe.com) when there is no base.
 */
export function stripeHostFor(key: string, apiBase: string | undefined, options: KeyDestinationOptions = {}): StripeHost | Record<string, never> {
  if (apiBase === undefined) return {};
  assertKeyDestination(key, apiBase, options);
  const url = parseOrigin(apiBase, options.variable ?? "STRIPE_API_BASE");
  const protocol = url.protocol === "http:" ? "http" : "https";
  const port = url.port === "" ? (protocol === "http" ? 80 : 443) : Number(url.port);
  return { host: url.hostname, port, protocol };
}

function parseOrigin(value: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(`${variable} must be a URL such as ${STRIPE_API_ORIGIN}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigurationError(`${variable} must use http or https`);
  if (url.username !== "" || url.password !== "") throw new ConfigurationError(`${variable} must not carry user info (a name or password before @)`);
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") throw new ConfigurationError(`${variable} must be an origin without a path or query`);
  return url;
}
