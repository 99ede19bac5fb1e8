// How long a replica may take to start: the number both the container's startup probe (infra/specs/consumer-probes.ts)
// and the runtime's wait for an unreachable database at start are built from. PURE. A replica that starts during a
// database failover (60-120 s on Flexible Server HA) waits for the database inside the startup window instead of
// exiting into the platform's restart back-off (which grows to minutes), and still leaves the window a margin to
// reach the queue and the vault once the database answers.

/** Container Apps' startup probe: asked every `periodSeconds`, restarted after `failureThreshold` failures in a row. */
export const STARTUP_PROBE = Object.freeze({ periodSeconds: 15, failureThreshold: 10 });

/** The whole window a replica has to answer /startup. */
export const STARTUP_WINDOW_MS = STARTUP_PROBE.periodSeconds * STARTUP_PROBE.failureThreshold * 1000;

/** What the window keeps after the database wait: the queue's peek, the vault's first key, an Entra token. */
const AFTER_DATABASE_MS = 30_000;

/** How long a starting consumer waits for a database it cannot reach (refused, reset, timed out) before it gives up. */
export const DATABASE_START_WAIT_MS = STARTUP_WINDOW_MS - AFTER_DATABASE_MS;
