// A Keybrake-compatible vault-key proxy on 127.0.0.1: issues vault keys bound to one Stripe key, and forwards
// Stripe API calls made with them to a Stripe API base (the sandbox's Stripe emulator), refusing calls over the
// key's daily cap (429), outside its endpoint allowlist (403) and after its expiry (401). Refusals use Stripe's
// error shape with `vault_*` codes, which the runtime turns into SpendCapExceededError / EndpointNotAllowedError.
import { randomBytes } from "node:crypto";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { systemClock, type Clock } from "../clock.js";

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
  clock?: Clock;
}

export interface VaultKeyState {
  vaultKey: string;
  label: string;
  capCents: number;
  allowedEndpoints: string[];
  expiresAt: Date;
  /** Cents charged (or in flight) per UTC day, `YYYY-MM-DD`. */
  spentCentsByDay: Record<string, number>;
}

export interface KeybrakeEmulator {
  /** Base URL of both the key API (`/vault/keys`) and the proxy (`/v1/...`). */
  baseUrl: string;
  apiKey: string;
  keys(): VaultKeyState[];
  /** Counts of what the proxy refused, by code. */
  refusals(): Record<string, number>;
  stop(): Promise<void>;
}

interface VaultKey extends VaultKeyState {
  /** Idempotency keys whose amount is counted against the cap: a replay is not a new spend. */
  counted: Set<string>;
}

const maxBodyBytes = 1 << 20;

export async function startKeybrakeEmulator(options: KeybrakeEmulatorOptions): Promise<KeybrakeEmulator> {
  const upstream = new URL(options.stripeApiBase);
  const stripeApiKey = options.stripeApiKey ?? "rk_test_sandbox";
  const apiKey = options.apiKey ?? "kb_test_sandbox";
  const clock = options.clock ?? systemClock;
  const keys = new Map<string, VaultKey>();
  const refusals: Record<string, number> = {};

  const refuse = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) => {
    refusals[code] = (refusals[code] ?? 0) + 1;
    sendJson(res, status, { error: { type: "invalid_request_error", code, message } }, headers);
  };

  const createKey = (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
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
    if (problems.length > 0) {
      sendJson(res, 400, { error: { type: "invalid_request_error", message: problems.join("; ") } });
      return;
    }
    const key: VaultKey = {
      vaultKey: `vk_test_${randomBytes(12).toString("hex")}`,
      label: typeof input.label === "string" ? input.label : "",
      capCents: Math.round((cap as number) * 100),
      allowedEndpoints: allowed as string[],
      expiresAt,
      spentCentsByDay: {},
      counted: new Set(),
    };
    keys.set(key.vaultKey, key);
    sendJson(res, 201, {
      vault_key: key.vaultKey,
      label: key.label,
      daily_usd_cap: cap,
      allowed_endpoints: key.allowedEndpoints,
      expires_at: key.expiresAt.toISOString(),
    });
  };

  const proxy = async (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const key = token === undefined ? undefined : keys.get(token);
    if (!key) return refuse(res, 401, "vault_key_unknown", "unknown vault key");
    if (clock.now() >= key.expiresAt.getTime()) return refuse(res, 401, "vault_key_expired", `vault key expired at ${key.expiresAt.toISOString()}`);
    const path = new URL(req.url ?? "/", "http://proxy").pathname;
    if (!key.allowedEndpoints.some((endpoint) => path === endpoint || path.startsWith(`${endpoint}/`))) {
      return refuse(res, 403, "vault_endpoint_not_allowed", `${req.method ?? "?"} ${path} is not in this vault key's allowed endpoints`);
    }
    // Only creating a PaymentIntent spends; its amount is reserved before forwarding so concurrent calls cannot
    // overshoot together, and released unless Stripe accepted it.
    const idempotencyKey = headerValue(req.headers["idempotency-key"]);
    const day = new Date(clock.now()).toISOString().slice(0, 10);
    let reserved = 0;
    if (req.method === "POST" && path === "/v1/payment_intents") {
      const amount = Number(new URLSearchParams(body.toString("utf8")).get("amount"));
      const alreadyCounted = idempotencyKey !== undefined && key.counted.has(idempotencyKey);
      if (!alreadyCounted && Number.isSafeInteger(amount) && amount > 0) {
        const spent = key.spentCentsByDay[day] ?? 0;
        if (spent + amount > key.capCents) {
          return refuse(
            res,
            429,
            "vault_spend_cap_exceeded",
            `charging ${amount} would take today's spend to ${spent + amount}, over the vault key's cap of ${key.capCents} cents`,
            { "stripe-should-retry": "false" },
          );
        }
        reserved = amount;
        key.spentCentsByDay[day] = spent + amount;
        if (idempotencyKey !== undefined) key.counted.add(idempotencyKey);
      }
    }
    const release = () => {
      if (reserved === 0) return;
      key.spentCentsByDay[day] = (key.spentCentsByDay[day] ?? 0) - reserved;
      if (idempotencyKey !== undefined) key.counted.delete(idempotencyKey);
      reserved = 0;
    };
    try {
      const answer = await forward(upstream, req, body, stripeApiKey);
      if (answer.status < 200 || answer.status >= 300) release();
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } catch (error) {
      release();
      sendJson(res, 502, { error: { type: "api_error", message: `upstream Stripe unreachable: ${String(error)}` } });
    }
  };

  const server = createServer((req, res) => {
    readBody(req)
      .then(async (body) => {
        const path = new URL(req.url ?? "/", "http://proxy").pathname;
        if (req.method === "POST" && path === "/vault/keys") createKey(req, body, res);
        else await proxy(req, body, res);
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
      [...keys.values()].map(({ counted: _counted, ...state }) => ({ ...state, spentCentsByDay: { ...state.spentCentsByDay } })),
    refusals: () => ({ ...refusals }),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reject(new Error(`request body over ${maxBodyBytes} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
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
