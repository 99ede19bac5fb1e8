// The container's probes (Container Apps' startup, readiness and liveness), answered over HTTP on HEALTH_PORT:
// - /startup: 200 once the consumer has started, which it does only after it reached the queue (a peek), opened the
//   billing database and built its Stripe client from the vault's key, or once it waits for a database that does not
//   answer (an outage: a restart would meet it again, so the replica waits, live, for as long as it lasts).
// - /ready: 200 once started; 503 before, while waiting for the database, and once stopping, so no new traffic is
//   routed while in-flight charges drain.
// - /live: 200 while the consumer's receive loop turns (the runtime's liveness: a message received or finished, or
//   the broker answering a peek while the queue is idle, within a stall threshold taken from the queue's lock); 503
//   with the reason when it stalls, and the platform restarts the replica. Before the consumer started (waiting for
//   the database included), 200: the startup probe decides then.
import { createServer, type Server } from "node:http";
import { ConfigError } from "./config.js";

export interface Liveness {
  live: boolean;
  reason?: string;
}

export interface HealthState {
  started: boolean;
  stopping: boolean;
  /** Waiting at start for a database that does not answer: started as far as the platform goes, not ready. */
  waitingForDatabase?: boolean;
  /** The running consumer's liveness (`RunningConsumer.liveness`), set once it started. */
  liveness?: () => Liveness;
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

function answer(url: string | undefined, state: HealthState): { ok: boolean; text: string } | undefined {
  const waiting = state.waitingForDatabase === true && !state.started;
  if (url === "/startup") return { ok: state.started || waiting, text: state.started ? "ok" : waiting ? "waiting for the database" : "not yet" };
  if (url === "/ready") {
    const ready = state.started && !state.stopping;
    return { ok: ready, text: ready ? "ok" : waiting ? "not ready: waiting for the database" : "not ready" };
  }
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
