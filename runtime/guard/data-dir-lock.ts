// One process at a time on an embedded (PGlite) data directory, with proper-lockfile: the lock is a directory whose
// modification time its holder refreshes every few seconds, and a lock nobody refreshed for `staleMs` is stale, taken
// over. Whether its holder is alive is never judged by its pid: after a container restart the new process may have
// the very pid (often 1) and hostname the dead one had, which a pid check calls alive for ever. A file beside the
// lock names the holder, for the error message only.
import lockfile from "proper-lockfile";
import { hostname } from "node:os";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DataDirectoryError } from "../errors.js";

/** The lock (a directory) inside the data directory; PostgreSQL ignores entries it does not know there. */
export const dataDirLockFile = "chargeguard.lock";
/** Who holds the lock: pid, host, command, since (informational). */
export const dataDirHolderFile = "chargeguard.holder.json";

/** A lock not refreshed for this long belongs to a dead holder (its holder refreshes it every staleMs / 2). */
export const staleMs = 10_000;
/** How long to wait for a lock that may be a dead holder's to go stale: a bit more than `staleMs`. */
const waitForStale = { retries: 12, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 };

interface LockHolder {
  pid: number;
  host: string;
  command: string;
  since: string;
}

export interface DataDirectoryLock {
  release(): Promise<void>;
}

/**
 * Takes the directory's lock, waiting up to about `staleMs` for a holder that stopped refreshing it (it died); a
 * holder that keeps refreshing it is named in the DataDirectoryError. `onLost`: the lock was taken from under us
 * (this process stalled past `staleMs`), so it must stop writing to the directory.
 */
export async function lockDataDirectory(path: string, onLost: (error: Error) => void): Promise<DataDirectoryLock> {
  const holderFile = join(path, dataDirHolderFile);
  const lockPath = join(path, dataDirLockFile);
  if (existsSync(lockPath) && !statSync(lockPath).isDirectory()) {
    // Earlier versions kept a JSON file here, judged by pid: it cannot be told stale, so a person decides.
    throw new DataDirectoryError(
      `${lockPath} is the lock file of an earlier chargeguard version: stop any process still using ${path} with it, delete the file, and start again`,
    );
  }
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(path, {
      lockfilePath: lockPath,
      realpath: false,
      stale: staleMs,
      retries: waitForStale,
      onCompromised: onLost,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    const holder = readHolder(holderFile);
    const who = holder ? `process ${holder.pid} on ${holder.host} (${holder.command}, since ${holder.since})` : "another process";
    throw new DataDirectoryError(
      `${path} is in use by ${who}, which keeps its lock fresh: PGlite allows one process at a time; stop it first, ` +
        `or use PostgreSQL (--database-url) to share the guard`,
    );
  }
  const me: LockHolder = { pid: process.pid, host: hostname(), command: process.argv.slice(1).join(" "), since: new Date().toISOString() };
  writeFileSync(holderFile, JSON.stringify(me));
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      rmSync(holderFile, { force: true });
      await release().catch(() => undefined);
    },
  };
}

function readHolder(file: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as LockHolder;
  } catch {
    return undefined;
  }
}
