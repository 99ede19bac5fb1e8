// An 'error' listener on every `pg` emitter the runtime creates, for its whole life. A connection that ends under a
// client (a standby takeover, a gateway's idle cut, a server restart) is emitted as 'error': by the pool while the
// client idles in it, but by the Client itself while it is checked out, since pg-pool takes its own listener off a
// client it hands out. An 'error' with no listener is thrown by Node, and the process exits: one failover would
// crash-loop the fleet. The statement that used the connection fails on its own (and the breaker counts it), and the
// pool connects again for the next one, so the listener only logs, and not once per error: once, then at most once
// a minute with how many it kept quiet.
import type pg from "pg";
import { loadPg } from "../sdk/load-pg.js";

export type PgErrorLog = (line: string) => void;

const quietMs = 60_000;

/**
 * Listens on `pool` and on every client it connects (checked out or idle), or on one `client`. `what` names the
 * connections in the log line ("the guard's pool"); `log` defaults to console.warn.
 */
export function listenForPgErrors(emitter: pg.Pool | pg.Client, what: string, log: PgErrorLog = (line) => console.warn(line), now: () => number = Date.now): void {
  const listener = quietLog(what, log, now);
  if ("totalCount" in emitter) {
    emitter.on("error", listener);
    emitter.on("connect", (client) => client.on("error", listener));
  } else {
    emitter.on("error", listener);
  }
}

/**
 * The one way the runtime makes a `pg` pool: with its 'error' listeners attached before any connection exists. `pg`
 * loads here, on the first pool (runtime/sdk/), not when the runtime is imported.
 */
export async function listenedPool(config: pg.PoolConfig, what: string, log?: PgErrorLog): Promise<pg.Pool> {
  const { Pool } = await loadPg();
  const pool = new Pool(config);
  listenForPgErrors(pool, what, log);
  return pool;
}

function quietLog(what: string, log: PgErrorLog, now: () => number): (error: Error) => void {
  let loggedAt: number | undefined;
  let quiet = 0;
  return (error) => {
    const at = now();
    if (loggedAt !== undefined && at - loggedAt < quietMs) {
      quiet += 1;
      return;
    }
    const more = quiet === 0 ? "" : ` (and ${quiet} more since the last line)`;
    log(`database: a connection of ${what} ended: ${error.message}${more}; the next statement connects again`);
    loggedAt = at;
    quiet = 0;
  };
}
