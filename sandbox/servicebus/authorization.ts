// Shared access (SAS) rules and the claims a connection earned with them, checked as Azure checks them: a CBS
// put-token carries `SharedAccessSignature sr=<url-encoded resource>&sig=<HMAC-SHA256 of "<sr>\n<se>", base64>&se=
// <expiry, epoch seconds>&skn=<rule>`; the signature must match the rule's key, the resource must lie inside the
// rule's scope (its queue, or the whole namespace) and the token's audience inside the resource. Each link attach
// and each $management operation then needs a live claim covering its entity with the right it uses.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export type AccessRight = "Listen" | "Send" | "Manage";

export interface AuthorizationRuleOptions {
  /** The queue the rule belongs to; absent: a namespace rule, valid for every entity. */
  queue?: string;
  /** Azure requires Listen and Send beside Manage. */
  rights: readonly AccessRight[];
  /** The rule's key; absent: a random one (read it back through `connectionStringFor`). */
  key?: string;
}

export interface AuthorizationRule {
  readonly name: string;
  readonly queue: string | undefined;
  readonly rights: ReadonlySet<AccessRight>;
  readonly key: string;
}

/** Microsoft's emulator's well-known root rule: namespace scope, every right. */
export const rootRuleName = "RootManageSharedAccessKey";
export const rootRuleKey = "SAS_KEY_VALUE";

const knownRights: readonly AccessRight[] = ["Listen", "Send", "Manage"];
const ruleNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/;

/** The rules of a namespace: the root rule plus the caller's. Throws a clear error for an invalid rule. */
export function resolveAuthorizationRules(rules: Record<string, AuthorizationRuleOptions> = {}): Map<string, AuthorizationRule> {
  const resolved = new Map<string, AuthorizationRule>([
    [rootRuleName, { name: rootRuleName, queue: undefined, rights: new Set(knownRights), key: rootRuleKey }],
  ]);
  for (const [name, rule] of Object.entries(rules)) {
    if (name === rootRuleName) throw new TypeError(`Authorization rule ${name} is the emulator's root rule: choose another name`);
    if (!ruleNamePattern.test(name)) {
      throw new TypeError(`Authorization rule name ${JSON.stringify(name)} is invalid: letters, digits, '.', '-' or '_'`);
    }
    const rights = Array.isArray(rule.rights) ? rule.rights : [];
    if (rights.length === 0) throw new TypeError(`Authorization rule ${name}: rights must list at least one of ${knownRights.join(", ")}`);
    for (const right of rights) {
      if (!knownRights.includes(right)) throw new TypeError(`Authorization rule ${name}: unknown right ${JSON.stringify(right)} (expected ${knownRights.join(", ")})`);
    }
    if (rights.includes("Manage") && !(rights.includes("Listen") && rights.includes("Send"))) {
      throw new TypeError(`Authorization rule ${name}: Manage requires Listen and Send too, as Azure requires`);
    }
    if (rule.key !== undefined && (typeof rule.key !== "string" || rule.key === "")) {
      throw new TypeError(`Authorization rule ${name}: key must be a non-empty string`);
    }
    if (rule.queue !== undefined && (typeof rule.queue !== "string" || rule.queue === "" || rule.queue.includes("$"))) {
      throw new TypeError(`Authorization rule ${name}: queue must be a queue name`);
    }
    resolved.set(name, { name, queue: rule.queue, rights: new Set(rights), key: rule.key ?? randomBytes(32).toString("base64") });
  }
  return resolved;
}

/** What a verified token lets its connection do: `path` and everything below it, until `expiresAt`. */
export interface Claim {
  readonly path: string;
  readonly rights: ReadonlySet<AccessRight>;
  readonly expiresAt: number;
  readonly rule: string;
}

export type TokenVerdict = { ok: true; claim: Claim } | { ok: false; description: string };

export const sasTokenType = "servicebus.windows.net:sastoken";

/** An entity path as Azure compares them: no leading or trailing slash, case-insensitive. */
export function entityPathOf(resource: string): string {
  let path = resource;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  if (scheme) path = path.slice(scheme[0].length);
  return path.replace(/^\/+|\/+$/g, "").toLowerCase();
}

const within = (path: string, scope: string) => scope === "" || path === scope || path.startsWith(`${scope}/`);

/** Verifies a CBS put-token (`type`, the `name` audience, the token text) against the namespace's rules. */
export function verifyPutToken(
  rules: ReadonlyMap<string, AuthorizationRule>,
  request: { type: unknown; audience: unknown; token: unknown },
  nowMs: number,
): TokenVerdict {
  if (request.type !== sasTokenType) {
    return { ok: false, description: `Unsupported token type ${String(request.type)}: the emulator verifies SAS tokens (${sasTokenType}) only` };
  }
  if (typeof request.token !== "string" || !request.token.startsWith("SharedAccessSignature ")) {
    return { ok: false, description: "InvalidSignature: the token is not a SharedAccessSignature" };
  }
  const fields = new Map<string, string>();
  for (const pair of request.token.slice("SharedAccessSignature ".length).split("&")) {
    const at = pair.indexOf("=");
    if (at > 0) fields.set(pair.slice(0, at), pair.slice(at + 1));
  }
  const sr = fields.get("sr");
  const sig = fields.get("sig");
  const se = fields.get("se");
  const skn = fields.get("skn");
  if (sr === undefined || sig === undefined || se === undefined || skn === undefined) {
    return { ok: false, description: "InvalidSignature: the token lacks sr, sig, se or skn" };
  }
  let keyName: string;
  let resource: string;
  let signature: Buffer;
  try {
    keyName = decodeURIComponent(skn);
    resource = decodeURIComponent(sr);
    signature = Buffer.from(decodeURIComponent(sig), "base64");
  } catch {
    return { ok: false, description: "InvalidSignature: the token is not URL-encoded correctly" };
  }
  const rule = rules.get(keyName);
  if (!rule) return { ok: false, description: `InvalidSignature: the token's key name ${keyName} is not a rule of this namespace` };
  const expected = createHmac("sha256", rule.key).update(`${sr}\n${se}`, "utf8").digest();
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
    return { ok: false, description: `InvalidSignature: the token's signature does not match rule ${keyName}'s key` };
  }
  const expiresAt = Number(se) * 1000;
  if (!Number.isFinite(expiresAt) || expiresAt <= nowMs) {
    return { ok: false, description: `ExpiredToken: the token expired at ${Number.isFinite(expiresAt) ? new Date(expiresAt).toISOString() : se}` };
  }
  const path = entityPathOf(resource);
  if (rule.queue !== undefined && !within(path, rule.queue.toLowerCase()) ) {
    return { ok: false, description: `InvalidAudience: rule ${keyName} belongs to queue ${rule.queue} and cannot sign for ${resource}` };
  }
  if (typeof request.audience !== "string" || !within(entityPathOf(request.audience), path)) {
    return { ok: false, description: `InvalidAudience: the token for ${resource} does not cover ${String(request.audience)}` };
  }
  return { ok: true, claim: { path, rights: rule.rights, expiresAt, rule: keyName } };
}

/**
 * The error description when none of a connection's claims lets it use `right` on `address` (an entity path such
 * as `q`, `q/$DeadLetterQueue` or `q/$management`); undefined when one does. Worded as Azure words it.
 */
export function unauthorized(claims: readonly Claim[], address: string, right: AccessRight | undefined, nowMs: number): string | undefined {
  const path = entityPathOf(address);
  const live = claims.filter((claim) => claim.expiresAt > nowMs && within(path, claim.path));
  if (right === undefined ? live.length > 0 : live.some((claim) => claim.rights.has(right))) return undefined;
  if (right === undefined || live.length === 0) {
    return `Unauthorized access. No valid token covers '${address}': put a token for it on $cbs first.`;
  }
  return `Unauthorized access. '${right}' claim(s) are required to perform this operation. Resource: '${address}'.`;
}

export const unauthorizedCondition = "amqp:unauthorized-access";
