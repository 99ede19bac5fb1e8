// SqlClient over a `pg` connection pool: PostgreSQL servers, competing consumers across processes.
import pg from "pg";
import type { SqlClient, SqlExecutor, SqlRow } from "./sql-client.js";

interface Runner {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

export function pgClient(databaseUrl: string, options: { poolSize?: number } = {}): SqlClient {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
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
