// The embedded data directory's lock judges a holder by whether it keeps its lock fresh, never by its pid: after a
// container restart the new process has the dead one's hostname and often its pid (1), which a pid check calls alive.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dataDirHolderFile, dataDirLockFile, lockDataDirectory, staleMs, type LockWaits } from "../../../runtime/guard/data-dir-lock.js";
import { openDataDirectory } from "../../../runtime/guard/data-dir.js";

const scratch = mkdtempSync(join(tmpdir(), "chargeguard-data-dir-lock-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What a holder that died leaves behind: its lock, last refreshed `ageMs` ago, and the file naming it. */
function leftBehind(dir: string, ageMs: number, holder: { pid: number; host: string }): void {
  mkdirSync(join(dir, dataDirLockFile), { recursive: true });
  writeFileSync(join(dir, dataDirHolderFile), JSON.stringify({ ...holder, command: "node dist/main.js", since: "2026-12-01T00:00:00.000Z" }));
  const at = new Date(Date.now() - ageMs);
  utimesSync(join(dir, dataDirLockFile), at, at);
}

describe("the data directory's lock", () => {
  it("never writes its holder file through a symlink planted in the data directory", async () => {
    const dir = join(scratch, "planted");
    mkdirSync(dir);
    const victim = join(scratch, "victim.txt");
    writeFileSync(victim, "precious");
    symlinkSync(victim, join(dir, dataDirHolderFile));
    const lock = await lockDataDirectory(dir, () => {});
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect(lstatSync(join(dir, dataDirHolderFile)).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, dataDirHolderFile), "utf8"))).toMatchObject({ pid: process.pid });
    await lock.release();
    expect(readFileSync(victim, "utf8")).toBe("precious");
  });

  it("takes over at once the lock of a holder that died before a container restart, though it names this host and pid", async () => {
    const dir = join(scratch, "restarted");
    mkdirSync(dir);
    leftBehind(dir, 5 * staleMs, { pid: process.pid, host: hostname() });
    const started = Date.now();
    const lock = await lockDataDirectory(dir, () => {});
    expect(Date.now() - started).toBeLessThan(staleMs / 2);
    await lock.release();
    expect(readdirSync(dir)).not.toContain(dataDirLockFile);
    expect(readdirSync(dir)).not.toContain(dataDirHolderFile);
  });

  it("waits for the lock of a holder that died just now to go stale, then takes it", async () => {
    const dir = join(scratch, "just-died");
    mkdirSync(dir);
    leftBehind(dir, staleMs - 3_000, { pid: 1, host: hostname() });
    const lock = await lockDataDirectory(dir, () => {});
    await lock.release();
  });

  it("refuses a directory whose holder keeps its lock fresh, naming the holder", async () => {
    const dir = join(scratch, "held");
    mkdirSync(dir);
    const holder = await lockDataDirectory(dir, () => {});
    try {
      await expect(openDataDirectory(dir, { existing: false })).rejects.toThrow(
        new RegExp(`is in use by process ${process.pid} on ${hostname()} .*keeps its lock fresh: PGlite allows one process at a time`),
      );
    } finally {
      await holder.release();
    }
  });

  it("refuses a live holder at once (no wait for staleness), naming the directory and the holder", async () => {
    const dir = join(scratch, "held-at-once");
    mkdirSync(dir);
    const holder = await lockDataDirectory(dir, () => {});
    const pauses: number[] = [];
    const counting: LockWaits = { now: () => Date.now(), sleep: async (ms) => void pauses.push(ms) };
    try {
      const refused = lockDataDirectory(dir, () => {}, counting);
      await expect(refused).rejects.toThrow(`${dir} is in use by process ${process.pid} on ${hostname()}`);
      expect(pauses).toEqual([]);
    } finally {
      await holder.release();
    }
  });

  it("looks again at a lock that missed its refresh, and refuses once its holder refreshes it", async () => {
    const dir = join(scratch, "late-refresh");
    mkdirSync(dir);
    leftBehind(dir, staleMs - 3_000, { pid: 4242, host: "replica-7" });
    const pauses: number[] = [];
    // The holder was only slow: it refreshes its lock while we wait.
    const refreshing: LockWaits = {
      now: () => Date.now(),
      sleep: async (ms) => {
        pauses.push(ms);
        const at = new Date();
        utimesSync(join(dir, dataDirLockFile), at, at);
      },
    };
    await expect(lockDataDirectory(dir, () => {}, refreshing)).rejects.toThrow(`${dir} is in use by process 4242 on replica-7`);
    expect(pauses).toEqual([1_000]);
  });

  it("refuses an earlier version's lock file instead of guessing whether its holder lives", async () => {
    const dir = join(scratch, "legacy");
    mkdirSync(dir);
    writeFileSync(join(dir, dataDirLockFile), JSON.stringify({ pid: process.pid, host: hostname(), command: "old", since: "" }));
    await expect(openDataDirectory(dir, { existing: false })).rejects.toThrow(/lock file of an earlier chargeguard version: stop any process/);
  });
});
