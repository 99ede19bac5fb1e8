// The proving ground's database template kept between runs: PGlite's initdb takes 4-8 s on two cores, and every
// contender waits for it, so the first seconds of each `npm start` (and of each proving-ground test) went to making the
// same data directory again. The freshly initialised directory is written once per PGlite version to the user's
// cache directory ($XDG_CACHE_HOME, else ~/.cache: private to the user, unlike the system's temp directory, so nobody
// else can plant a database there) and read back on later runs. Anything unreadable or unexpected is ignored and made
// again; a cache that cannot be written costs only the time it would have saved.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";

/** Where the data directory of this PGlite version is kept (the dump is tied to the version that wrote it). */
export function templateCachePath(environment: NodeJS.ProcessEnv = process.env): string {
  // The package exports no package.json: read it beside the entry point's directory (dist/).
  const manifest = new URL("../package.json", import.meta.resolve("@electric-sql/pglite"));
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  const base = environment["XDG_CACHE_HOME"] || path.join(homedir(), ".cache");
  return path.join(base, "chargeguard", `pglite-${version}-datadir.tar`);
}

/** The cached data directory, or undefined when there is none (or it is not an uncompressed tar). */
export async function readCachedDataDir(file: string): Promise<Uint8Array | undefined> {
  try {
    const bytes = await readFile(file);
    return isTar(bytes) ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the data directory for later runs: written beside its name, then renamed, so a reader never sees half. */
export async function cacheDataDir(file: string, dataDir: Uint8Array): Promise<void> {
  // Unique per writer: proving-ground runs (and threads) may fill the cache at the same time.
  const partial = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.partial`;
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(partial, dataDir, { mode: 0o600 });
    await rename(partial, file);
  } catch {
    await rm(partial, { force: true });
  }
}

/** A POSIX tar: "ustar" at offset 257 of its first header (what PGlite's dumpDataDir("none") writes). */
function isTar(bytes: Uint8Array): boolean {
  return bytes.byteLength > 512 && Buffer.from(bytes.subarray(257, 262)).toString("latin1") === "ustar";
}
