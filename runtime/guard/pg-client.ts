// SqlClient over a `pg` connection pool: PostgreSQL servers, competing consumers across processes.
import pg from "pg";
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
  return {
    host: decodeURIComponent(url.hostname),
    port: url.port === "" ? 5432 : Number(url.port),
    user: decodeURIComponent(url.username),
    database: decodeURIComponent(url.pathname.replace(/^\//, "")) || undefined,
    // Any sslmode but disable: TLS with the server certificate verified (Azure's is publicly trusted).
    ...(sslmode !== null && sslmode !== "disable" ? { ssl: true } : {}),
  };
}

export function pgClient(databaseUrl: string, options: { poolSize?: number; password?: DatabasePassword } = {}): SqlClient {
  const max = options.poolSize ?? 10;
  const pool = new pg.Pool(
    options.password === undefined ? { connectionString: databaseUrl, max } : { ...connectionParams(databaseUrl), password: options.password, max },
  );
  // An idle connection that dies (server restart) must not crash the process; the next query reconnects.
  pool.on("error", () => {});

  const execute = async <R extends SqlRow>(runner: Runner, sql: string, params: readonly unknown[] = []) => {
    const result = await runner.query(sql, [...params]);
    return result.rows as R[];
  };

  return {
    query: (sql, params) => execute(pool, sql, params),
    async transaction(fn) {
      const connection = await pool.connect();
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
    close: () => pool.end(),
  };
}
