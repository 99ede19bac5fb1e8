// The container's probes (Container Apps' startup, readiness and liveness), answered over HTTP on HEALTH_PORT:
// - /startup and /ready: 200 once the consumer has started, which it does only after it reached the queue (a peek),
//   opened the billing database and built its Stripe client from the vault's key; 503 before, and once stopping, so
//   no new traffic is routed while in-flight charges drain.
// - /live: 200 while the process still turns its event loop (the receive loop runs on it); 503 when a tick is late
//   by more than LIVENESS_STALL_MS, and the platform restarts the replica.
import { createServer, type Server } from "node:http";

/** A tick later than this means the event loop (and with it the receive loop) is stuck. */
export const LIVENESS_STALL_MS = 30_000;
const TICK_MS = 1_000;

export interface HealthState {
  started: boolean;
  stopping: boolean;
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startHealthServer(port: number, state: HealthState, host = "0.0.0.0"): Promise<HealthServer> {
  let lastTick = Date.now();
  const ticker = setInterval(() => (lastTick = Date.now()), TICK_MS);
  ticker.unref();
  const server: Server = createServer((request, response) => {
    const ok =
      request.url === "/live" ? Date.now() - lastTick <= LIVENESS_STALL_MS : request.url === "/startup" ? state.started : request.url === "/ready" ? state.started && !state.stopping : undefined;
    response.statusCode = ok === undefined ? 404 : ok ? 200 : 503;
    response.setHeader("content-type", "text/plain");
    response.end(ok === undefined ? "not found\n" : ok ? "ok\n" : "not yet\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  server.unref();
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(ticker);
        server.close(() => resolve());
      }),
  };
}
