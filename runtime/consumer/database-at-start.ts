// A consumer that starts while its PostgreSQL fails over or hangs: opening the guard (a connection, the migrations)
// fails as an outage, not as a wrong setting. Exiting then hands the replica to the platform's restart back-off, which
// grows to minutes, so billing resumes long after the database is back. Instead the start waits for the database,
// one attempt at a time on the waits' backoff (wait-policy.ts: 1 s doubling to 10 s), inside the startup window; a
// failure that is not an outage (a refused login, a wrong schema) ends the start at once, named.
import { databaseFault } from "../guard/dependency-fault.js";
import { defaultWaitBackoff } from "../resilience/wait-policy.js";

export interface DatabaseStartWait {
  /** Give up after this long (ms), with the last error. */
  waitMs: number;
  log: (line: string) => void;
  /** For tests; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

/** While waiting, a line every so often (not one per attempt: the log stays readable through a long failover). */
const logEveryMs = 30_000;

export async function openWhenReachable<T>(open: () => Promise<T>, wait: DatabaseStartWait): Promise<T> {
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const started = performance.now();
  let delayMs = defaultWaitBackoff.firstDelayMs;
  let loggedAt = -Infinity;
  let attempts = 0;
  for (;;) {
    try {
      const opened = await open();
      if (attempts > 0) wait.log(`database: reachable after ${Math.round((performance.now() - started) / 1000)} s; starting`);
      return opened;
    } catch (error) {
      if (databaseFault(error) === undefined) throw error;
      attempts += 1;
      const waited = performance.now() - started;
      const reason = error instanceof Error ? error.message : String(error);
      if (waited + delayMs > wait.waitMs) {
        wait.log(`database: still unreachable after ${Math.round(waited / 1000)} s (${reason}); giving up the start`);
        throw error;
      }
      if (performance.now() - loggedAt >= logEveryMs) {
        loggedAt = performance.now();
        wait.log(`database: unreachable at start (${reason}); waiting for it up to ${Math.round(wait.waitMs / 1000)} s (a failover?)`);
      }
      await sleep(delayMs);
      delayMs = Math.min(defaultWaitBackoff.maxDelayMs, delayMs * 2);
    }
  }
}
