// A consumer that starts while its PostgreSQL is down, failing over or hung: opening the guard (a connection, the
// migrations) fails as an outage, not as a wrong setting. Exiting then hands the replica to the platform's restart
// back-off, which grows to minutes, and a replica restarted into an outage longer than any fixed wait would exit
// again and again: billing resumes long after the database is back, and the fleet's log is a restart loop. Instead the
// start waits for the database for as long as it takes (one attempt at a time on the waits' backoff, wait-policy.ts:
// 1 s doubling to 10 s), receiving nothing meanwhile; the caller reports it not ready (`onWaiting`), and a stop signal
// (`signal`) ends the wait at once. A wrong setting (a host name that does not resolve, a refused login, no such
// database) is no outage: it ends the start at once as a ConsumerStartError naming DATABASE_URL, exit 2.
import { ChargeguardSignal } from "../core/errors.js";
import { databaseFault } from "../guard/dependency-fault.js";
import { defaultWaitBackoff } from "../resilience/wait-policy.js";
import { ConsumerStartError } from "./servicebus-preflight.js";

export interface DatabaseStartWait {
  /** Give up after this long (ms), with the last error (exit 1); absent: wait until the database answers. */
  waitMs?: number;
  log: (line: string) => void;
  /** Ends the wait (the process was asked to stop): the start rejects with StartStoppedSignal. */
  signal?: AbortSignal;
  /** true when the start begins waiting for the database, false when the database answers. */
  onWaiting?: (waiting: boolean) => void;
  /** For tests: a virtual clock and sleep; default performance.now() and setTimeout. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The start was stopped while it waited for the database: the caller's own signal, not a failure. */
export class StartStoppedSignal extends ChargeguardSignal {
  override readonly name = "StartStoppedSignal";
  constructor() {
    super("stopped while waiting for the database at start");
  }
}

/** While waiting, a line at most this often (not one per attempt: the log stays readable through a long outage). */
export const stillWaitingLogEveryMs = 60_000;

export async function openWhenReachable<T>(open: () => Promise<T>, wait: DatabaseStartWait): Promise<T> {
  const now = wait.now ?? (() => performance.now());
  const sleep = wait.sleep ?? ((ms: number) => abortableSleep(ms, wait.signal));
  const started = now();
  const seconds = () => Math.round((now() - started) / 1000);
  let delayMs = defaultWaitBackoff.firstDelayMs;
  let loggedAt: number | undefined;
  for (;;) {
    if (wait.signal?.aborted) throw new StartStoppedSignal();
    try {
      const opened = await open();
      if (loggedAt !== undefined) {
        wait.log(`database: reachable after ${seconds()} s; starting`);
        wait.onWaiting?.(false);
      }
      return opened;
    } catch (error) {
      const misconfigured = databaseMisconfiguration(error);
      if (misconfigured !== undefined) throw new ConsumerStartError(misconfigured, { cause: error });
      if (databaseFault(error) === undefined) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      if (wait.waitMs !== undefined && now() - started + delayMs > wait.waitMs) {
        wait.log(`database: still unreachable after ${seconds()} s (${reason}); giving up the start (databaseStartWaitMs)`);
        throw error;
      }
      if (loggedAt === undefined) {
        loggedAt = now();
        wait.log(`database: unreachable at start (${reason}); waiting for it, receiving nothing and not ready until it answers`);
        wait.onWaiting?.(true);
      } else if (now() - loggedAt >= stillWaitingLogEveryMs) {
        loggedAt = now();
        wait.log(`database: still unreachable after ${seconds()} s (${reason}); waiting`);
      }
      await sleep(delayMs);
      delayMs = Math.min(defaultWaitBackoff.maxDelayMs, delayMs * 2);
    }
  }
}

/** SQLSTATE classes of a refused login (28: invalid authorization) and no such database (3D000). */
const refusedSetting = /^(28|3D000)/;

/**
 * A failure that says DATABASE_URL itself is wrong, named, or undefined. A host name that does not resolve (ENOTFOUND,
 * a definite answer; EAI_AGAIN, a resolver that did not answer, stays an outage) is one at start, though a running
 * consumer meeting it treats it as an outage (a resolver's moment), as it does every failure after a good start.
 */
export function databaseMisconfiguration(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (code === "ENOTFOUND") return `DATABASE_URL names a host that does not resolve (${current.message}): check the server's name`;
    if (typeof code === "string" && refusedSetting.test(code)) return `DATABASE_URL is refused by the server (${current.message}): check its user, password or database name`;
  }
  return undefined;
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
