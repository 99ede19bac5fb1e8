// SqlClient over a `pg` connection pool: PostgreSQL servers, competing consumers across processes.
import type pg from "pg";
import { listenedPool, type PgErrorLog } from "./pg-errors.js";
import { ConfigurationError } from "../core/errors.js";
import { isLoopbackHost } from "../core/loopback-host.js";
import type { SqlClient, SqlExecutor, SqlRow } from "./sql-client.js";

interface Runner {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A password, or a callback `pg` runs for every new connection (an Entra token: see entra-password.ts). */
export type DatabasePassword = string | (() => Promise<string>);

/**
 * The URL's connection parameters without its password. `pg` lets a connection string's (empty) password override
 * an explicit one, so a password callback only works with the URL taken apart.
 */
export function connectionParams(databaseUrl: string): pg.PoolConfig {
  const url = new URL(databaseUrl);
  const sslmode = url.searchParams.get("sslmode");
  const host = decodeURIComponent(url.hostname);
  // The password here is a separate secret (an Entra token): it never crosses a network in clear. Without sslmode
  // TLS is on unless the server is on loopback; sslmode=disable to another host is refused.
  const loopback = isLoopbackHost(host);
  if (sslmode === "disable" && !loopback) {
    throw new ConfigurationError("DATABASE_URL has sslmode=disable: a password or Entra token goes to a server that is not loopback over TLS only");
  }
  const tls = sslmode === null ? !loopback : sslmode !== "disable";
  return {
    host,
    port: url.port === "" ? 5432 : Number(url.port),
    user: decodeURIComponent(url.username),
    database: decodeURIComponent(url.pathname.replace(/^\//, "")) || undefined,
    // TLS with the server certificate verified (Azure's is publicly trusted).
    ...(tls ? { ssl: true } : {}),
  };
}

/**
 * How long the pool waits on a server before it calls it down (README, "Degraded dependencies"): a failover refuses
 * connections, a hung server accepts and never answers, a dead path answers nothing at all. Each becomes an error
 * within seconds, which the consumer's database breaker treats as an outage, instead of holding deliveries forever.
 */
export type PgTimeouts = Pick<
  pg.PoolConfig,
  "connectionTimeoutMillis" | "statement_timeout" | "query_timeout" | "idle_in_transaction_session_timeout" | "keepAlive" | "keepAliveInitialDelayMillis"
>;

export const pgTimeouts: Readonly<PgTimeouts> = {
  /** A new connection must be up within this. */
  connectionTimeoutMillis: 5_000,
  /** The server cancels a statement running longer (a claim is one short statement; a batch of them too). */
  statement_timeout: 15_000,
  /** The client gives up on an answer after this (a server that accepted and hangs); then the connection is dropped. */
  query_timeout: 20_000,
  /** The server ends a session left idle inside a transaction (a client that died mid-transaction frees its locks). */
  idle_in_transaction_session_timeout: 10_000,
  /** TCP keepalives: a path that died without a reset is found. */
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
};

export interface PgClientOptions {
  poolSize?: number;
  password?: DatabasePassword;
  timeouts?: PgTimeouts;
  /** Where a lost connection is logged (pg-errors.ts); default console.warn. */
  log?: PgErrorLog;
}

export function pgClient(databaseUrl: string, options: PgClientOptions = {}): SqlClient {
  const max = options.poolSize ?? 10;
  const settings = { ...pgTimeouts, ...options.timeouts, max };
  const config = options.password === undefined ? { connectionString: databaseUrl, ...settings } : { ...connectionParams(databaseUrl), password: options.password, ...settings };
  // Made on the first statement, when `pg` loads (runtime/sdk/); never before, so an unused client holds nothing.
  // A connection that dies (a server restart, a failover, an idle cut), idle or checked out, must not crash the process.
  let opening: Promise<pg.Pool> | undefined;
  const pool = () => (opening ??= listenedPool(config, "the guard's pool", options.log));

  const execute = async <R extends SqlRow>(runner: Runner, sql: string, params: readonly unknown[] = []) => {
    const result = await runner.query(sql, [...params]);
    return result.rows as R[];
  };

  return {
    query: async (sql, params) => execute(await pool(), sql, params),
    async transaction(fn) {
      const connection = await (await pool()).connect();
      const tx: SqlExecutor = {
        query: (sql, params) => execute(connection, sql, params),
      };
      let broken: Error | undefined;
      try {
        await connection.query("BEGIN");
        const value = await fn(tx);
        await connection.query("COMMIT");
        return value;
      } catch (error) {
        try {
          await connection.query("ROLLBACK");
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw error;
      } finally {
        // A connection whose ROLLBACK failed is in an unknown state: destroy it rather than reuse it.
        connection.release(broken);
      }
    },
    close: async () => {
      // No pool when no statement ran (or `pg` failed to load): nothing to end.
      const opened = await opening?.catch(() => undefined);
      await opened?.end();
    },
  };
}
