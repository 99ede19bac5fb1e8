// An embedded (PGlite) data directory, opened safely: one process at a time (PGlite is single-process; a second
// one aborts the WebAssembly runtime), and, for tools that only read or repair (reconcile), never created from a
// mistyped path nor written into a directory that holds something else.
import type { PGlite } from "@electric-sql/pglite";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorMessage } from "../core/describe-error.js";
import { DataDirectoryError } from "../core/errors.js";
import { lockDataDirectory } from "./data-dir-lock.js";
import { loadPglite } from "./load-pglite.js";
import { pgliteClient } from "./pglite-client.js";
import type { SqlClient } from "./sql-client.js";

export interface OpenedDataDirectory {
  pglite: PGlite;
  /** Closes the database, then releases the lock. */
  close(): Promise<void>;
}

/**
 * Opens `dir` as the guard's embedded database. `existing: true` refuses a directory that is not already a guard
 * database (missing, empty, or a database without the guard's schema), so nothing is created there.
 */
export async function openDataDirectory(dir: string, options: { existing: boolean }): Promise<OpenedDataDirectory> {
  const path = resolve(dir);
  // Before anything is created or locked: a consumer without PGlite installed learns so, and nothing is written.
  const { PGlite } = await loadPglite();
  if (options.existing) assertLooksLikeDatabase(path);
  else mkdirSync(path, { recursive: true });
  let pglite: PGlite | undefined;
  // Lost to another process (this one stalled past the stale time): stop writing here at once; what is in flight
  // fails as an unknown outcome and is retried, rather than two processes writing one database.
  const lock = await lockDataDirectory(path, (lost) => {
    console.error(`chargeguard: lost the lock on ${path} (${lost.message}); closing the embedded database`);
    void pglite?.close().catch(() => undefined);
  });
  try {
    pglite = await PGlite.create({ dataDir: path });
  } catch (error) {
    await lock.release();
    throw new DataDirectoryError(`${path} could not be opened as an embedded guard database: ${errorMessage(error)}`);
  }
  const opened = pglite;
  const close = async () => {
    try {
      if (!opened.closed) await opened.close();
    } finally {
      await lock.release();
    }
  };
  if (options.existing) {
    const rows = await opened.query<{ found: string | null }>("SELECT to_regclass('chargeguard_schema_version')::text AS found");
    if (!rows.rows[0]?.found) {
      await close();
      throw new DataDirectoryError(`${path} is a database but not a chargeguard guard database (no chargeguard_schema_version table): check the path`);
    }
  }
  return { pglite: opened, close };
}

function assertLooksLikeDatabase(path: string): void {
  if (!existsSync(path)) throw new DataDirectoryError(`${path} does not exist: give the consumer's data directory (e.g. ./.data)`);
  if (!statSync(path).isDirectory()) throw new DataDirectoryError(`${path} is not a directory`);
  if (!existsSync(join(path, "PG_VERSION"))) {
    throw new DataDirectoryError(`${path} is not an embedded guard database (no PG_VERSION): check the path; nothing was written`);
  }
}

/** The guard's SqlClient over an opened directory: closing it closes the database and releases the lock. */
export function dataDirectoryClient(opened: OpenedDataDirectory): SqlClient {
  const client = pgliteClient(opened.pglite, { owned: false });
  return { ...client, close: () => opened.close() };
}
