// Where the guard keeps its records: one way to open PostgreSQL, an embedded PGlite data directory (checked and locked
// before it is used) or, asked by name, memory, for the one Guard every flow, identity and the reconciler go through.
import type { PGlite } from "@electric-sql/pglite";
import { dataDirectoryClient, openDataDirectory } from "./data-dir.js";
import { pgClient, type PgTimeouts } from "./pg-client.js";
import { loadPglite } from "./load-pglite.js";
import { pgliteClient } from "./pglite-client.js";
import type { SqlClient } from "./sql-client.js";
import { ConfigurationError } from "../core/errors.js";

export interface GuardDatabaseOptions {
  /** PostgreSQL URL (`pg` pool). Absent: PGlite (`pglite`, else `dataDir`, else `inMemory` when asked for). */
  databaseUrl?: string;
  /** An open embedded database; shared, so `close()` leaves it open. */
  pglite?: PGlite;
  /** Directory for an embedded database the guard opens (and closes), locked to this process meanwhile. */
  dataDir?: string;
  /** With `dataDir`: refuse a directory that is not already a guard database (tools like reconcile) instead of creating one. */
  requireExistingDataDir?: boolean;
  /**
   * Keep the records in a throw-away in-memory database: tests and demos only, asked for by name, because a restart
   * forgets every claim (and with it what Stripe was already asked). Without it and without a database the guard
   * refuses to open.
   */
  inMemory?: boolean;
  /** Connections in the `pg` pool; default 10. */
  poolSize?: number;
  /**
   * The PostgreSQL password when `databaseUrl` has none: a string, or a callback run per new connection, e.g.
   * `entraPassword({ credential })` for Microsoft Entra sign-in (DATABASE_AUTH=entra).
   */
  databasePassword?: string | (() => Promise<string>);
  /** The `pg` pool's connection, statement and idle-in-transaction timeouts and keepalives; default `pgTimeouts`. */
  databaseTimeouts?: PgTimeouts;
  /** Where a lost database connection is reported (once, then at most once a minute); default console.warn. */
  databaseLog?: (line: string) => void;
}

export async function openSqlClient(options: GuardDatabaseOptions): Promise<SqlClient> {
  if (options.databaseUrl) {
    return pgClient(options.databaseUrl, {
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      ...(options.databasePassword === undefined ? {} : { password: options.databasePassword }),
      ...(options.databaseTimeouts === undefined ? {} : { timeouts: options.databaseTimeouts }),
      ...(options.databaseLog === undefined ? {} : { log: options.databaseLog }),
    });
  }
  if (options.pglite) return pgliteClient(options.pglite, { owned: false });
  if (options.dataDir) {
    return dataDirectoryClient(await openDataDirectory(options.dataDir, { existing: options.requireExistingDataDir ?? false }));
  }
  if (options.inMemory === true) return pgliteClient(await (await loadPglite()).PGlite.create({}), { owned: true });
  throw new ConfigurationError(
    "the guard has nowhere durable to keep its records: give databaseUrl (PostgreSQL, e.g. DATABASE_URL), dataDir (an embedded " +
      "database on disk) or pglite (an open one); inMemory: true is for tests and demos only, since a restart forgets every claim",
  );
}
