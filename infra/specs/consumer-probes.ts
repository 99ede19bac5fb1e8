// The consumer container's probes, served by the generated consumer (templates/files/consumer/src/health.ts) on
// HEALTH_PORT: startup and readiness once it reached its queue, database and vault; liveness while its receive loop
// turns (the runtime's RunningConsumer.liveness, stalled after tuning's receiveStallMs of the queue's lock). Numbers within Container Apps' limits (failureThreshold 1..10, period 1..240 s). Pure.

import { STARTUP_PROBE } from "../../tuning/index.js";

/** The port the app's HEALTH_PORT names and the probes ask. */
export const HEALTH_PORT = 8080;

export interface ProbeSpec {
  type: "Startup" | "Readiness" | "Liveness";
  httpGet: { path: string; port: number };
  periodSeconds: number;
  failureThreshold: number;
  timeoutSeconds: number;
}

export const consumerProbes: readonly ProbeSpec[] = Object.freeze([
  // Up to 150 s (tuning's STARTUP_WINDOW_MS) to peek the queue, open the database (an Entra token first) and build the
  // Stripe client. A database that does not answer answers /startup at once: the replica waits for it live and not
  // ready (receiving nothing) for as long as the outage lasts, never restarted into it again.
  { type: "Startup", httpGet: { path: "/startup", port: HEALTH_PORT }, ...STARTUP_PROBE, timeoutSeconds: 5 },
  // Out of rotation while stopping (in-flight charges drain during the grace period) and while waiting for the database.
  { type: "Readiness", httpGet: { path: "/ready", port: HEALTH_PORT }, periodSeconds: 10, failureThreshold: 3, timeoutSeconds: 5 },
  // A receive loop stalled past the queue's lock (the consumer's threshold), then 3 x 30 s of 503s, restarts the replica.
  { type: "Liveness", httpGet: { path: "/live", port: HEALTH_PORT }, periodSeconds: 30, failureThreshold: 3, timeoutSeconds: 5 },
]);
