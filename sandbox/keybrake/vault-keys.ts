// Keybrake's key API (`POST /vault/keys`): the account key creates a vault key with a daily USD cap, an endpoint
// allowlist and an expiry; every field is checked and all problems are named in one 400. With `budget` (a name) the
// key spends a budget shared by every key created into it, capped at the latest key's `daily_usd_cap`: keys minted
// one after another (refreshes, replicas) spend one cap, not one each. The answer echoes `budget`, so a client knows
// the vault shares it.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SandboxClock } from "../clock.js";
import { sendJson } from "./http.js";
import type { SpendAccount } from "./spend-cap.js";

export interface VaultKeyState {
  vaultKey: string;
  label: string;
  capCents: number;
  allowedEndpoints: string[];
  expiresAt: Date;
  /** Cents charged (or in flight) per UTC day, `YYYY-MM-DD`, through this key (its budget's when it has one). */
  spentCentsByDay: Record<string, number>;
  /** The shared budget the key spends, when created into one. */
  budget?: string;
}

export interface VaultKey extends VaultKeyState, SpendAccount {}

/** The cap a key's spend counts against: its budget's, or its own. */
export function spendAccount(key: VaultKey, budgets: ReadonlyMap<string, SpendAccount>): SpendAccount {
  return (key.budget === undefined ? undefined : budgets.get(key.budget)) ?? key;
}

export interface VaultKeyApi {
  /** The account key that may create vault keys. */
  apiKey: string;
  clock: SandboxClock;
  keys: Map<string, VaultKey>;
  budgets: Map<string, SpendAccount>;
}

export function createVaultKey({ apiKey, clock, keys, budgets }: VaultKeyApi, req: IncomingMessage, body: Buffer, res: ServerResponse): void {
  if (req.headers.authorization !== `Bearer ${apiKey}`) {
    sendJson(res, 401, { error: { type: "authentication_error", message: "invalid Keybrake API key" } });
    return;
  }
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
  } catch {
    sendJson(res, 400, { error: { type: "invalid_request_error", message: "body must be JSON" } });
    return;
  }
  const problems = keyRequestProblems(input, clock);
  if (problems.length > 0) {
    sendJson(res, 400, { error: { type: "invalid_request_error", message: problems.join("; ") } });
    return;
  }
  const capCents = Math.round((input.daily_usd_cap as number) * 100);
  const budget = typeof input.budget === "string" ? input.budget : undefined;
  if (budget !== undefined) {
    const shared = budgets.get(budget) ?? { capCents, spentCentsByDay: {}, counted: new Set<string>() };
    shared.capCents = capCents;
    budgets.set(budget, shared);
  }
  const key: VaultKey = {
    vaultKey: `vk_test_${randomBytes(12).toString("hex")}`,
    label: typeof input.label === "string" ? input.label : "",
    capCents,
    allowedEndpoints: input.allowed_endpoints as string[],
    expiresAt: new Date(input.expires_at as string),
    spentCentsByDay: {},
    counted: new Set(),
    ...(budget === undefined ? {} : { budget }),
  };
  keys.set(key.vaultKey, key);
  sendJson(res, 201, {
    vault_key: key.vaultKey,
    label: key.label,
    daily_usd_cap: input.daily_usd_cap,
    allowed_endpoints: key.allowedEndpoints,
    expires_at: key.expiresAt.toISOString(),
    ...(budget === undefined ? {} : { budget }),
  });
}

/** What is wrong with a create request, each problem in words; empty when it is valid. */
function keyRequestProblems(input: Record<string, unknown>, clock: SandboxClock): string[] {
  const problems: string[] = [];
  if (input.vendor !== "stripe") problems.push('vendor must be "stripe"');
  const cap = input.daily_usd_cap;
  if (typeof cap !== "number" || !(cap > 0)) problems.push("daily_usd_cap must be a positive number");
  const allowed = input.allowed_endpoints;
  if (!Array.isArray(allowed) || allowed.length === 0 || !allowed.every((e) => typeof e === "string" && e.startsWith("/"))) {
    problems.push("allowed_endpoints must be a non-empty list of paths");
  }
  const expiresAt = new Date(typeof input.expires_at === "string" ? input.expires_at : Number.NaN);
  if (Number.isNaN(expiresAt.getTime())) problems.push("expires_at must be an ISO 8601 date");
  else if (expiresAt.getTime() <= clock.now()) problems.push("expires_at is in the past");
  if (input.budget !== undefined && (typeof input.budget !== "string" || !/^[\w.:-]{1,200}$/.test(input.budget))) {
    problems.push("budget must be a name of 1-200 letters, digits and . _ : -");
  }
  return problems;
}
