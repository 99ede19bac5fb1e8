// One process at a time on an embedded (PGlite) data directory, with proper-lockfile: the lock is a directory whose
// modification time its holder refreshes every few seconds, and a lock nobody refreshed for `staleMs` is stale, taken
// over. Whether its holder is alive is never judged by its pid: after a container restart the new process may have
// the very pid (often 1) and hostname the dead one had, which a pid check calls alive for ever. A file beside the
// lock names the holder, for the error message only.
import lockfile from "proper-lockfile";
import { hostname } from "node:os";
import { closeSync, constants, existsSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DataDirectoryError } from "../core/errors.js";
import { redactSecrets } from "../core/text/redact.js";

/** The lock (a directory) inside the data directory; PostgreSQL ignores entries it does not know there. */
export const dataDirLockFile = "chargeguard.lock";
/** Who holds the lock: pid, host, command, since (informational). */
export const dataDirHolderFile = "chargeguard.holder.json";

/** A lock not refreshed for this long belongs to a dead holder (its holder refreshes it every staleMs / 2). */
export const staleMs = 10_000;
/** proper-lockfile's refresh interval (its `update` default, half of `stale`): a live holder's lock is never older. */
const refreshMs = staleMs / 2;
/** A coarse file system's mtime (whole seconds) and a busy event loop may age a live holder's lock by this much. */
const refreshSlackMs = 1_000;
/** How often a lock that missed a refresh is looked at again while it may be going stale. */
const staleCheckMs = 1_000;

/** The clock and the pause of the wait for a stale lock (a test passes its own, to count the pauses). */
export interface LockWaits {
  now(): number;
  sleep(ms: number): Promise<void>;
}
const realWaits: LockWaits = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

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
 * Takes the directory's lock. A lock refreshed within proper-lockfile's interval has a live holder: refused at once,
 * naming the directory and the holder. A lock that missed its refresh may be a dead holder's: it is looked at every
 * second until it goes stale (taken over, at most about `staleMs`) or is refreshed (a live holder after all:
 * refused). `onLost`: the lock was taken from under us (this process stalled past `staleMs`), so it must stop
 * writing to the directory.
 */
export async function lockDataDirectory(path: string, onLost: (error: Error) => void, waits: LockWaits = realWaits): Promise<DataDirectoryLock> {
  const holderFile = join(path, dataDirHolderFile);
  const lockPath = join(path, dataDirLockFile);
  if (existsSync(lockPath) && !statSync(lockPath).isDirectory()) {
    // Earlier versions kept a JSON file here, judged by pid: it cannot be told stale, so a person decides.
    throw new DataDirectoryError(
      `${lockPath} is the lock file of an earlier chargeguard version: stop any process still using ${path} with it, delete the file, and start again`,
    );
  }
  const release = await acquire(path, lockPath, onLost, waits);
  // The command line may carry a secret passed as a flag: the holder file (read back in errors) keeps it redacted.
  const me: LockHolder = { pid: process.pid, host: hostname(), command: redactSecrets(process.argv.slice(1).join(" ")), since: new Date().toISOString() };
  writeHolder(holderFile, JSON.stringify(me));
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

/** proper-lockfile's lock, waiting only for a lock that may be going stale; a live holder is a DataDirectoryError. */
async function acquire(path: string, lockPath: string, onLost: (error: Error) => void, waits: LockWaits): Promise<() => Promise<void>> {
  let lastSeen: number | undefined;
  for (let look = 0; ; look++) {
    try {
      return await lockfile.lock(path, { lockfilePath: lockPath, realpath: false, stale: staleMs, retries: 0, onCompromised: onLost });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    }
    const refreshedAt = lockMtime(lockPath);
    if (refreshedAt === undefined) continue; // released between the attempt and the look: try again
    const fresh = waits.now() - refreshedAt <= refreshMs + refreshSlackMs;
    const refreshedSince = lastSeen !== undefined && refreshedAt !== lastSeen;
    // Past staleMs proper-lockfile takes the lock over itself; a look budget keeps a wrong clock from spinning.
    if ((lastSeen === undefined && fresh) || refreshedSince || look > staleMs / staleCheckMs + 2) throw inUse(path);
    lastSeen = refreshedAt;
    await waits.sleep(staleCheckMs);
  }
}

function lockMtime(lockPath: string): number | undefined {
  try {
    return statSync(lockPath).mtimeMs;
  } catch {
    return undefined;
  }
}

function inUse(path: string): DataDirectoryError {
  const holder = readHolder(join(path, dataDirHolderFile));
  const who = holder ? `process ${holder.pid} on ${holder.host} (${holder.command}, since ${holder.since})` : "another process";
  return new DataDirectoryError(
    `${path} is in use by ${who}, which keeps its lock fresh: PGlite allows one process at a time; stop it first, ` +
      `or use PostgreSQL (--database-url) to share the guard`,
  );
}

/**
 * Writes the holder file without following a symlink: whoever can write the data directory could otherwise point
 * chargeguard.holder.json at any file and have this process (often root in a container) overwrite it. The old entry
 * is removed (a symlink itself, never its target), then the file is created exclusively with O_NOFOLLOW: a link
 * planted in between makes the open fail instead of writing through it.
 */
function writeHolder(file: string, text: string): void {
  rmSync(file, { force: true });
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as LockHolder;
  } catch {
    return undefined;
  }
}
