// A Keybrake-compatible vault-key proxy on 127.0.0.1: issues vault keys bound to one Stripe key, and forwards
// Stripe API calls made with them to a Stripe API base (the sandbox's Stripe emulator), refusing calls over the
// key's daily cap (429), outside its endpoint allowlist (403) and after its expiry (401). Refusals use Stripe's
// error shape with `vault_*` codes, which the runtime turns into SpendCapExceededError / EndpointNotAllowedError.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock, type SandboxClock } from "../clock.js";
import { readBody, sendJson } from "./http.js";
import { proxyVaultCall } from "./proxy.js";
import type { SpendAccount } from "./spend-cap.js";
import { createVaultKey, spendAccount, type VaultKey, type VaultKeyState } from "./vault-keys.js";

export type { VaultKeyState };

export type KeyServiceMode = "up" | "unavailable" | "throttled";

export interface KeybrakeEmulatorOptions {
  /** Where allowed calls go, e.g. the Stripe emulator's `apiBase`. */
  stripeApiBase: string;
  /** The Stripe key vault keys are bound to; default "rk_test_sandbox". */
  stripeApiKey?: string;
  /** The account key that may create vault keys; default "kb_test_sandbox". */
  apiKey?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Expiry and the cap's day; default the system clock. */
  clock?: SandboxClock;
}

export interface KeybrakeEmulator {
  /** Base URL of both the key API (`/vault/keys`) and the proxy (`/v1/...`). */
  baseUrl: string;
  apiKey: string;
  keys(): VaultKeyState[];
  /** Counts of what the proxy refused, by code. */
  refusals(): Record<string, number>;
  /**
   * Degrades the key service (`POST /vault/keys`), not the proxy (keys already issued keep working, as a vault's
   * secrets already read do): "unavailable" answers 503, "throttled" 429 with `Retry-After` (Azure Key Vault's
   * throttling), "up" ends it. Requests met meanwhile are counted in `keyServiceStats`.
   */
  degradeKeyService(mode: KeyServiceMode): void;
  readonly keyServiceStats: { unavailable: number; throttled: number; issued: number };
  stop(): Promise<void>;
}

export async function startKeybrakeEmulator(options: KeybrakeEmulatorOptions): Promise<KeybrakeEmulator> {
  const apiKey = options.apiKey ?? "kb_test_sandbox";
  const clock = options.clock ?? systemClock;
  const keys = new Map<string, VaultKey>();
  const budgets = new Map<string, SpendAccount>();
  const refusals: Record<string, number> = {};
  let keyService: KeyServiceMode = "up";
  const keyServiceStats = { unavailable: 0, throttled: 0, issued: 0 };
  const proxy = { upstream: new URL(options.stripeApiBase), stripeApiKey: options.stripeApiKey ?? "rk_test_sandbox", clock, keys, budgets, refusals };

  const server = createServer((req, res) => {
    readBody(req)
      .then(async (body) => {
        const path = new URL(req.url ?? "/", "http://proxy").pathname;
        if (req.method === "POST" && path === "/vault/keys") {
          if (keyService === "up") {
            keyServiceStats.issued += 1;
            createVaultKey({ apiKey, clock, keys, budgets }, req, body, res);
          } else {
            keyServiceStats[keyService] += 1;
            answerDegradedKeyService(keyService, res);
          }
        } else await proxyVaultCall(proxy, req, body, res);
      })
      .catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 400, { error: { type: "invalid_request_error", message: String(error) } });
        else res.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    keys: () =>
      [...keys.values()].map((key) => {
        const { counted: _counted, ...state } = key;
        return { ...state, spentCentsByDay: { ...spendAccount(key, budgets).spentCentsByDay } };
      }),
    refusals: () => ({ ...refusals }),
    degradeKeyService(mode) {
      if (mode !== "up" && mode !== "unavailable" && mode !== "throttled") throw new RangeError(`key service mode must be up, unavailable or throttled, got ${String(mode)}`);
      keyService = mode;
    },
    keyServiceStats,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function answerDegradedKeyService(mode: Exclude<KeyServiceMode, "up">, res: ServerResponse): void {
  if (mode === "throttled") {
    sendJson(res, 429, { error: { type: "rate_limit_error", code: "Throttled", message: "Rate limit is exceeded. Try again in 1 seconds." } }, { "retry-after": "1" });
  } else {
    sendJson(res, 503, { error: { type: "api_error", message: "The vault is unavailable (an outage injected by the sandbox)." } });
  }
}
