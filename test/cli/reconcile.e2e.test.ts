// `chargeguard reconcile --data-dir` as an operator runs it (the built CLI, spawned): it opens only an existing
// guard database, never creates one, and shares it with no other process; without one named, the consumer's
// ./.data/billing when the command runs in its directory.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Guard } from "../../runtime/index.js";
import { buildCli, runCli, type BuiltCli } from "../support/built-cli.js";

let cli: BuiltCli;
let scratch: string;
// A key the command accepts; the Stripe API is never reached in these cases.
const env = { STRIPE_API_KEY: "rk_test_sandbox", STRIPE_API_BASE: "http://127.0.0.1:9", DATABASE_URL: undefined };

beforeAll(() => {
  cli = buildCli();
  scratch = mkdtempSync(join(tmpdir(), "chargeguard-reconcile-dir-"));
}, 180_000);
afterAll(() => {
  cli?.remove();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("chargeguard reconcile --data-dir", () => {
  it("refuses a missing directory and creates nothing (exit 2)", async () => {
    const dir = join(scratch, "mistyped");
    const run = await runCli(cli, ["reconcile", "--data-dir", dir], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${dir} does not exist`);
    expect(existsSync(dir)).toBe(false);
  });

  it("refuses an unrelated directory and writes nothing into it (exit 2)", async () => {
    const dir = join(scratch, "unrelated");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), "not a database");
    const run = await runCli(cli, ["reconcile", "--data-dir", dir], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is not an embedded guard database (no PG_VERSION)");
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
  });

  it("refuses an embedded database that is not a guard's (exit 2)", async () => {
    const dir = join(scratch, "other-db");
    const other = await PGlite.create({ dataDir: dir });
    await other.query("CREATE TABLE unrelated (id int)");
    await other.close();
    const run = await runCli(cli, ["reconcile", "--data-dir", dir], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is a database but not a chargeguard guard database");
  });

  it("refuses a guard database held by another process, naming the holder, then runs once it is free", async () => {
    const dir = join(scratch, "guard");
    const guard = await Guard.open({ dataDir: dir });
    try {
      const busy = await runCli(cli, ["reconcile", "--data-dir", dir], { env });
      expect(busy.code).toBe(2);
      expect(busy.stderr).toContain(`is in use by process ${process.pid}`);
      expect(busy.stderr).toContain("one process at a time");
    } finally {
      await guard.close();
    }
    const free = await runCli(cli, ["reconcile", "--data-dir", dir], { env });
    expect(free.stderr).toBe("");
    expect(free.stdout).toMatch(/0 stale pending billing/);
    expect(free.code).toBe(0);
    expect(readdirSync(dir)).not.toContain("chargeguard.lock");
  });

  it("takes over the lock of a holder that died, though it named this host and pid (a container restart)", async () => {
    const dir = join(scratch, "guard");
    // What the dead holder left: its lock, not refreshed for a minute, and the file naming it (this very pid).
    mkdirSync(join(dir, "chargeguard.lock"));
    writeFileSync(join(dir, "chargeguard.holder.json"), JSON.stringify({ pid: process.pid, host: (await import("node:os")).hostname(), command: "gone", since: "" }));
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(join(dir, "chargeguard.lock"), minuteAgo, minuteAgo);
    const run = await runCli(cli, ["reconcile", "--data-dir", dir, "--json"], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ examined: 0 });
  });

  it("in a consumer's directory with no database named, takes its ./.data/billing and says so; elsewhere names what is missing (exit 2)", async () => {
    const consumer = join(scratch, "consumer");
    const guard = await Guard.open({ dataDir: join(consumer, ".data", "billing") });
    await guard.close();
    const taken = await runCli(cli, ["reconcile", "--json"], { env, cwd: consumer });
    expect(taken.code, taken.stderr).toBe(0);
    expect(JSON.parse(taken.stdout)).toMatchObject({ examined: 0 });
    expect(taken.stderr).toContain("no database named: reconciling the consumer's embedded database ./.data/billing");
    const elsewhere = join(scratch, "elsewhere");
    mkdirSync(elsewhere);
    const missing = await runCli(cli, ["reconcile"], { env, cwd: elsewhere });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("reconcile needs the billing database: --database-url URL, env DATABASE_URL, or --data-dir DIR");
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("refuses --database-url with --data-dir, and a missing key, as usage errors (exit 2)", async () => {
    const both = await runCli(cli, ["reconcile", "--data-dir", scratch, "--database-url", "postgres://127.0.0.1:9/x"], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--database-url and --data-dir cannot be used together");
    const noKey = await runCli(cli, ["reconcile", "--data-dir", scratch], { env: { ...env, STRIPE_API_KEY: undefined } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("or STRIPE_API_KEY (a restricted rk_ key");
    const badLimit = await runCli(cli, ["reconcile", "--data-dir", scratch, "--limit", "0"], { env });
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain('--limit "0" is invalid; allowed: a whole number from 1 up');
  });
});
