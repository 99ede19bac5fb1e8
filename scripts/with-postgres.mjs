#!/usr/bin/env node
// Runs a command with a throw-away PostgreSQL server on 127.0.0.1 and stops the server after,
// whatever the command's outcome. The server's URL reaches the command as TEST_DATABASE_URL.
// PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const separator = process.argv.indexOf("--");
const command = separator >= 0 ? process.argv.slice(separator + 1) : process.argv.slice(2);
if (command.length === 0) {
  console.error("usage: node scripts/with-postgres.mjs -- <command> [args...]");
  process.exit(2);
}

function findBinDir() {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "pg_ctl")));
    versions.sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v pg_ctl"], { encoding: "utf8" });
  const found = which.stdout.trim();
  return found ? found.replace(/\/pg_ctl$/, "") : undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const isRoot = process.getuid?.() === 0;
function asPostgres(bin, args) {
  const [file, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  const result = spawnSync(file, argv, { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`${bin} ${args.join(" ")} failed (exit ${result.status}): ${result.stderr || result.stdout}`);
  }
  return result.stdout;
}

function run(cmd, env) {
  return new Promise((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: "inherit", env, shell: process.platform === "win32" });
    const forward = (signal) => child.kill(signal);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const binDir = findBinDir();
if (!binDir) {
  if (process.env.CI) {
    console.error("with-postgres: PostgreSQL server binaries not found (install the 'postgresql' package)");
    process.exit(1);
  }
  console.warn("with-postgres: PostgreSQL not installed; running without TEST_DATABASE_URL (PostgreSQL tests will say so)");
  process.exit(await run(command, process.env));
}

const dir = mkdtempSync(join(tmpdir(), "chargeguard-pg-"));
if (isRoot) {
  const pw = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
}
const dataDir = join(dir, "data");
const port = await freePort();
let started = false;
let code = 1;
try {
  asPostgres(join(binDir, "initdb"), ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  asPostgres(join(binDir, "pg_ctl"), [
    "-D", dataDir, "-w", "-l", join(dir, "server.log"),
    "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    "start",
  ]);
  started = true;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  console.log(`with-postgres: PostgreSQL (${binDir}) on 127.0.0.1:${port}`);
  code = await run(command, { ...process.env, TEST_DATABASE_URL: url, PG_BIN_DIR: binDir });
} catch (error) {
  console.error(`with-postgres: ${error.message}`);
} finally {
  if (started) {
    try {
      asPostgres(join(binDir, "pg_ctl"), ["-D", dataDir, "-m", "fast", "-w", "stop"]);
    } catch (error) {
      console.error(`with-postgres: stopping the server failed: ${error.message}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
