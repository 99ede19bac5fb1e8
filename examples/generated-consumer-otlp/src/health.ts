// The container's probes (Container Apps' startup, readiness and liveness), answered over HTTP on HEALTH_PORT:
// - /startup and /ready: 200 once the consumer has started, which it does only after it reached the queue (a peek),
//   opened the billing database and built its Stripe client from the vault's key; 503 before, and once stopping, so
//   no new traffic is routed while in-flight charges drain.
// - /live: 200 while the consumer's receive loop turns (the runtime's liveness: a message received or finished, or
//   the broker answering a peek while the queue is idle, within a stall threshold taken from the queue's lock); 503
//   with the reason when it stalls, and the platform restarts the replica. Before the consumer started, 200: the
//   startup probe decides then.
import { createServer, type Server } from "node:http";
import { ConfigError } from "./config.js";

export interface Liveness {
  live: boolean;
  reason?: string;
}

export interface HealthState {
  started: boolean;
  stopping: boolean;
  /** The running consumer's liveness (`RunningConsumer.liveness`), set once it started. */
  liveness?: () => Liveness;
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

function answer(url: string | undefined, state: HealthState): { ok: boolean; text: string } | undefined {
  if (url === "/startup") return { ok: state.started, text: state.started ? "ok" : "not yet" };
  if (url === "/ready") return { ok: state.started && !state.stopping, text: state.started && !state.stopping ? "ok" : "not ready" };
  if (url !== "/live") return undefined;
  const liveness = state.liveness?.() ?? { live: true };
  return { ok: liveness.live, text: liveness.live ? "ok" : `stalled: ${liveness.reason ?? "the receive loop does not turn"}` };
}

export async function startHealthServer(port: number, state: HealthState, host = "0.0.0.0"): Promise<HealthServer> {
  const server: Server = createServer((request, response) => {
    const answered = answer(request.url, state);
    response.statusCode = answered === undefined ? 404 : answered.ok ? 200 : 503;
    response.setHeader("content-type", "text/plain");
    response.end(`${answered === undefined ? "not found" : answered.text}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      // A taken port is a setting to change, named as one (exit 2), not the bare EADDRINUSE of a crash.
      reject(error.code === "EADDRINUSE" ? new ConfigError([`HEALTH_PORT ${port} is already in use on ${host}: set HEALTH_PORT to a free port`]) : error),
    );
    server.listen(port, host, resolve);
  });
  server.unref();
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
