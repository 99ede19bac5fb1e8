// Keybrake's proxy (`/v1/...`): a call made with a vault key is checked (known, not expired, endpoint allowed, under
// the daily cap) and forwarded to Stripe with the Stripe key the vault key is bound to. Refusals use Stripe's error
// shape with `vault_*` codes and are counted by code.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { SandboxClock } from "../clock.js";
import { headerValue, sendJson } from "./http.js";
import { reserveSpend, type SpendAccount } from "./spend-cap.js";
import { spendAccount, type VaultKey } from "./vault-keys.js";

export interface VaultProxy {
  upstream: URL;
  stripeApiKey: string;
  clock: SandboxClock;
  keys: ReadonlyMap<string, VaultKey>;
  budgets: ReadonlyMap<string, SpendAccount>;
  refusals: Record<string, number>;
}

export async function proxyVaultCall(proxy: VaultProxy, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const { clock } = proxy;
  const refuse = (status: number, code: string, message: string, headers: Record<string, string> = {}) => {
    proxy.refusals[code] = (proxy.refusals[code] ?? 0) + 1;
    sendJson(res, status, { error: { type: "invalid_request_error", code, message } }, headers);
  };
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  const key = token === undefined ? undefined : proxy.keys.get(token);
  if (!key) return refuse(401, "vault_key_unknown", "unknown vault key");
  if (clock.now() >= key.expiresAt.getTime()) return refuse(401, "vault_key_expired", `vault key expired at ${key.expiresAt.toISOString()}`);
  const path = new URL(req.url ?? "/", "http://proxy").pathname;
  if (!key.allowedEndpoints.some((endpoint) => path === endpoint || path.startsWith(`${endpoint}/`))) {
    return refuse(403, "vault_endpoint_not_allowed", `${req.method ?? "?"} ${path} is not in this vault key's allowed endpoints`);
  }
  const idempotencyKey = headerValue(req.headers["idempotency-key"]);
  const day = new Date(clock.now()).toISOString().slice(0, 10);
  const reservation = reserveSpend(spendAccount(key, proxy.budgets), { method: req.method, path, body, idempotencyKey, day });
  if ("refused" in reservation) return refuse(429, "vault_spend_cap_exceeded", reservation.refused, { "stripe-should-retry": "false" });
  try {
    const answer = await forward(proxy.upstream, req, body, proxy.stripeApiKey);
    if (answer.status < 200 || answer.status >= 300) reservation.release();
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  } catch (error) {
    reservation.release();
    sendJson(res, 502, { error: { type: "api_error", message: `upstream Stripe unreachable: ${String(error)}` } });
  }
}

interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

function forward(upstream: URL, req: IncomingMessage, body: Buffer, stripeApiKey: string): Promise<UpstreamAnswer> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== "host" && name !== "authorization" && name !== "connection") headers[name] = value;
  }
  headers.authorization = `Bearer ${stripeApiKey}`;
  const send = upstream.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () => {
          const answerHeaders: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value !== undefined && name !== "connection" && name !== "transfer-encoding") answerHeaders[name] = value;
          }
          const answerBody = Buffer.concat(chunks);
          answerHeaders["content-length"] = String(answerBody.length);
          resolve({ status: incoming.statusCode ?? 502, headers: answerHeaders, body: answerBody });
        });
        incoming.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}
