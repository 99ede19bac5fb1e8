// Test-only: a pass-through in front of the Keybrake emulator that can answer money-moving calls with the vault's
// spend-cap refusal (429 `vault_spend_cap_exceeded`, Stripe's error shape, `Stripe-Should-Retry: false`), as Keybrake
// does when a key's cap is spent. The emulator counts only PaymentIntents against a cap; the model needs the refusal
// for every flow, on demand, and healed on demand (the operator raised the cap). It can also refuse to mint keys for
// one billing period, as a vault with nothing forecast for that period does (a consumer billing in arrears).
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface VaultFront {
  baseUrl: string;
  /** While true, requests `refuses(path)` matches are refused as over the key's cap. */
  capRefusing: boolean;
  /** While set, key requests for this billing period (`YYYY-MM`, read from the key's label) are refused 400. */
  refusesKeysFor: string | undefined;
  readonly refused: number;
  stop(): Promise<void>;
}

export async function startVaultFront(target: string, refuses: (method: string, path: string) => boolean): Promise<VaultFront> {
  const upstream = new URL(target);
  let refused = 0;
  const front: VaultFront = {
    baseUrl: "",
    capRefusing: false,
    refusesKeysFor: undefined,
    get refused() {
      return refused;
    },
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = createServer((req: IncomingMessage, res) => {
    const path = new URL(req.url ?? "/", "http://front").pathname;
    if (front.capRefusing && refuses(req.method ?? "", path)) {
      refused += 1;
      req.resume();
      const body = JSON.stringify({ error: { type: "invalid_request_error", code: "vault_spend_cap_exceeded", message: "over the vault key's cap (model)" } });
      res.writeHead(429, { "content-type": "application/json", "stripe-should-retry": "false", "content-length": Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    if (front.refusesKeysFor !== undefined && req.method === "POST" && path === "/vault/keys") {
      refuseKeysFor(front.refusesKeysFor, req, res, (body) => forward(upstream, req, res, body));
      return;
    }
    forward(upstream, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  front.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return front;
}

/** Passes a request on to the vault (its body read already when given), and its answer back. */
function forward(upstream: URL, req: IncomingMessage, res: ServerResponse, body?: Buffer): void {
  const outgoing = request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (incoming) => {
    res.writeHead(incoming.statusCode ?? 502, incoming.headers);
    incoming.pipe(res);
  });
  outgoing.on("error", () => res.destroy());
  if (body === undefined) req.pipe(outgoing);
  else outgoing.end(body);
}

/** Reads a key request: refused 400 when its label names `period` (`<budget>-<period>[-<currency>]`), else passed on. */
function refuseKeysFor(period: string, req: IncomingMessage, res: ServerResponse, pass: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("error", () => res.destroy());
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    let label = "";
    try {
      label = String((JSON.parse(body.toString("utf8")) as { label?: unknown }).label ?? "");
    } catch {
      // Not JSON: the vault answers it.
    }
    if (!new RegExp(`-${period}(-[a-z]{3})?$`).test(label)) {
      pass(body);
      return;
    }
    const answer = JSON.stringify({ error: { type: "invalid_request_error", message: `nothing is forecast for ${period} (model)` } });
    res.writeHead(400, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
    res.end(answer);
  });
}
