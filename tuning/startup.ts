// How long a replica may take to start: the container's startup probe (infra/specs/consumer-probes.ts). PURE. The
// window covers what a start does on its own (settings, the health server, telemetry, an Entra token, the queue's peek,
// the vault's first key); a database that does not answer is not a start taking long but an outage: the replica
// answers /startup once it waits for it (live, not ready, receiving nothing) and waits as long as the outage lasts,
// so a platform restart never meets the same outage again (runtime/consumer/database-at-start.ts).

/** Container Apps' startup probe: asked every `periodSeconds`, restarted after `failureThreshold` failures in a row. */
export const STARTUP_PROBE = Object.freeze({ periodSeconds: 15, failureThreshold: 10 });

/** The whole window a replica has to answer /startup. */
export const STARTUP_WINDOW_MS = STARTUP_PROBE.periodSeconds * STARTUP_PROBE.failureThreshold * 1000;
