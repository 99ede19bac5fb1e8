// An embedded (PGlite) data directory, opened safely: one process at a time (PGlite is single-process; a second
// one aborts the WebAssembly runtime), and, for tools that only read or repair (reconcile), never created from a
// mistyped path nor written into a directory that holds something else.
import { PGlite } from "@electric-sql/pglite";
import { hostname } from "node:os";
import { existsSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorMessage } from "../describe-error.js";
import { DataDirectoryError } from "../errors.js";
import { pgliteClient } from "./pglite-client.js";
import type { SqlClient } from "./sql-client.js";

/** The lock file inside the data directory (PostgreSQL ignores files it does not know in its data directory). */
export const dataDirLockFile = "chargeguard.lock";

interface LockHolder {
  pid: number;
  host: string;
  command: string;
  since: string;
}

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
  if (options.existing) assertLooksLikeDatabase(path);
  else mkdirSync(path, { recursive: true });
  const release = lockDataDirectory(path);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({ dataDir: path });
  } catch (error) {
    release();
    throw new DataDirectoryError(`${path} could not be opened as an embedded guard database: ${errorMessage(error)}`);
  }
  const close = async () => {
    try {
      await pglite.close();
    } finally {
      release();
    }
  };
  if (options.existing) {
    const rows = await pglite.query<{ found: string | null }>("SELECT to_regclass('chargeguard_schema_version')::text AS found");
    if (!rows.rows[0]?.found) {
      await close();
      throw new DataDirectoryError(`${path} is a database but not a chargeguard guard database (no chargeguard_schema_version table): check the path`);
    }
  }
  return { pglite, close };
}

function assertLooksLikeDatabase(path: string): void {
  if (!existsSync(path)) throw new DataDirectoryError(`${path} does not exist: give the consumer's data directory (e.g. ./.data)`);
  if (!statSync(path).isDirectory()) throw new DataDirectoryError(`${path} is not a directory`);
  if (!existsSync(join(path, "PG_VERSION"))) {
    throw new DataDirectoryError(`${path} is not an embedded guard database (no PG_VERSION): check the path; nothing was written`);
  }
}

/** Takes the directory's lock file or throws naming the live holder; a holder that has died leaves a stale lock, taken over. */
export function lockDataDirectory(path: string): () => void {
  const file = join(path, dataDirLockFile);
  const me: LockHolder = { pid: process.pid, host: hostname(), command: process.argv.slice(1).join(" "), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, JSON.stringify(me), { flag: "wx" });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const holder = readHolder(file);
        if (holder?.pid === me.pid && holder.host === me.host) unlinkSync(file);
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") throw error;
      const holder = readHolder(file);
      if (holder && isAlive(holder)) {
        throw new DataDirectoryError(
          `${path} is in use by process ${holder.pid} on ${holder.host} (${holder.command}, since ${holder.since}): ` +
            `PGlite allows one process at a time; stop it first, or use PostgreSQL (--database-url) to share the guard`,
        );
      }
      unlinkSync(file);
    }
  }
  throw new DataDirectoryError(`${path}: could not take ${dataDirLockFile}`);
}

function readHolder(file: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as LockHolder;
  } catch {
    return undefined;
  }
}

/** A holder on another host cannot be checked: treat it as alive. On this host, signal 0 tells. */
function isAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The guard's SqlClient over an opened directory: closing it closes the database and releases the lock. */
export function dataDirectoryClient(opened: OpenedDataDirectory): SqlClient {
  const client = pgliteClient(opened.pglite, { owned: false });
  return { ...client, close: () => opened.close() };
}
