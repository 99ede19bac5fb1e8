// The guard's persistence interface: the same SQL runs over a `pg` pool (a PostgreSQL server) and over PGlite
// (embedded). Adapters only move statements and rows; every rule lives in the SQL and in billing-guard.ts and the
// files it writes through (claim-batch.ts, record-batches.ts, period-spend.ts).

export type SqlRow = Record<string, unknown>;

export interface SqlExecutor {
  query<R extends SqlRow = SqlRow>(sql: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface SqlClient extends SqlExecutor {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Closes what the adapter opened; a connection handed in by the caller stays open. */
  close(): Promise<void>;
}
