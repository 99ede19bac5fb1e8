// Test-only: a pass-through in front of the Keybrake emulator that can answer money-moving calls with the vault's
// spend-cap refusal (429 `vault_spend_cap_exceeded`, Stripe's error shape, `Stripe-Should-Retry: false`), as Keybrake
// does when a key's cap is spent. The emulator counts only PaymentIntents against a cap; the model needs the refusal
// for every flow, on demand, and healed on demand (the operator raised the cap).
import { createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface VaultFront {
  baseUrl: string;
  /** While true, requests `refuses(path)` matches are refused as over the key's cap. */
  capRefusing: boolean;
  readonly refused: number;
  stop(): Promise<void>;
}

export async function startVaultFront(target: string, refuses: (method: string, path: string) => boolean): Promise<VaultFront> {
  const upstream = new URL(target);
  let refused = 0;
  const front: VaultFront = {
    baseUrl: "",
    capRefusing: false,
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
    const outgoing = request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (incoming) => {
      res.writeHead(incoming.statusCode ?? 502, incoming.headers);
      incoming.pipe(res);
    });
    outgoing.on("error", () => res.destroy());
    req.pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  front.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return front;
}
