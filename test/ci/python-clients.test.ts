// .ci/python-clients installs Debian's Python clients when missing, but CI must neither fail nor wait long when apt is
// unavailable: each way apt can be missing ends in one line naming why, exit 0, within seconds. A fake interpreter that
// lacks the modules and a fake apt-get first on PATH stand in for the machine (nothing is installed).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, test } from "vitest";

const script = path.resolve(import.meta.dirname, "../../.ci/python-clients");
const scratch: string[] = [];
afterEach(() => scratch.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A PATH of only the tools the script uses, plus `apt-get` when given its body. */
function machine(aptGet?: string): string {
  const bin = mkdtempSync(path.join(tmpdir(), "python-clients-"));
  scratch.push(bin);
  for (const tool of ["bash", "env", "mktemp", "rm", "timeout", "grep", "tail", "sleep", "false", "dirname"]) {
    const found = spawnSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    symlinkSync(found, path.join(bin, tool));
  }
  if (aptGet !== undefined) writeFileSync(path.join(bin, "apt-get"), `#!/usr/bin/env bash\n${aptGet}\n`, { mode: 0o755 });
  return bin;
}

function run(bin: string, env: Record<string, string> = {}) {
  const started = Date.now();
  const result = spawnSync(path.join(bin, "bash"), [script], {
    encoding: "utf8",
    timeout: 30_000,
    env: { PATH: bin, CHARGEGUARD_PYTHON: path.join(bin, "false"), ...env },
  });
  return { status: result.status, stderr: result.stderr.trim(), ms: Date.now() - started };
}

test("no apt-get: one line, exit 0", () => {
  const { status, stderr } = run(machine());
  expect(status).toBe(0);
  expect(stderr).toBe(".ci/python-clients: Debian's Python clients not installed, their tests will be skipped: no apt-get on this machine");
});

test("apt-get refuses (no rights, no network): its first error named, exit 0", () => {
  const { status, stderr } = run(machine(`echo "E: Could not open lock file /var/lib/apt/lists/lock - open (13: Permission denied)" >&2; exit 100`));
  expect(status).toBe(0);
  expect(stderr).toMatch(/^\.ci\/python-clients: .* skipped: apt-get failed or took over 180 s: E: Could not open lock file .*Permission denied\)$/);
});

test("only the network part has the deadline: update and download, then the install from the cache (a dpkg killed mid-unpack would be half-configured)", () => {
  const bin = machine(`echo "$*" >> "$(dirname "$0")/calls"; case "$*" in *--no-download*) echo "E: Sub-process /usr/bin/dpkg returned an error code (1)" >&2; exit 100;; esac`);
  const { status, stderr } = run(bin);
  expect(status).toBe(0);
  expect(stderr).toMatch(/skipped: apt-get install failed: E: Sub-process \/usr\/bin\/dpkg returned an error code \(1\)$/);
  const calls = readFileSync(path.join(bin, "calls"), "utf8").trim().split("\n").map((line) => line.split(" ").filter((word) => !word.startsWith("-") && !word.includes("::"))[0]);
  expect(calls).toEqual(["update", "install", "install"]);
  expect(readFileSync(path.join(bin, "calls"), "utf8")).toMatch(/install -y --download-only [^\n]*python3-azure[^\n]*\ninstall -y --no-download /);
});

test("apt-get that hangs (an unreachable mirror) is cut at CHARGEGUARD_APT_TIMEOUT: exit 0 within seconds", () => {
  const { status, stderr, ms } = run(machine("sleep 600"), { CHARGEGUARD_APT_TIMEOUT: "1" });
  expect(status).toBe(0);
  expect(stderr).toMatch(/apt-get failed or took over 1 s/);
  expect(ms).toBeLessThan(10_000);
});
