import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The commands a user mistypes first, run through the built CLI (npm run build): each a short message naming the
// flag, exit 2, no help dump, one prefix.
const root = join(import.meta.dirname, "../..");
const cli = join(root, "dist/cli/index.js");
const scratch = mkdtempSync(join(tmpdir(), "chargeguard-usage-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}) {
  if (!existsSync(cli)) expect.fail(`${cli} is missing: run npm run build first`);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("SERVICEBUS_")));
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", env: { ...clean, ...env }, timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, lines: result.stderr.trim().split("\n") };
}

describe("usage errors: one short line, exit 2", () => {
  const cases: [string[], string, RegExp][] = [
    [["prove", "--events", "-5"], "chargeguard prove: ", /--events "-5" is invalid; allowed: a whole number from 1 to/],
    [["dlq", "peek"], "chargeguard dlq peek: ", /--queue is required/],
    [["sandbox", "--max-delivery-count", "0"], "chargeguard sandbox: ", /--max-delivery-count "0" is invalid; allowed: a whole number from 1/],
    [["reconcile", "--limit", "0"], "chargeguard reconcile: ", /--limit "0" is invalid; allowed: a whole number from 1/],
    [["plan", "--stack", "nope"], "chargeguard plan: ", /Pulumi\.nope\.yaml/],
    [["new", "consumer", join(scratch, "c"), "--bogus"], "chargeguard new consumer: ", /--bogus is not an option; allowed: --name, --queue/],
    [["new", "consumer", join(scratch, "c"), "--db", "mongo"], "chargeguard new consumer: ", /--db "mongo" is invalid; allowed: pglite, postgres/],
    [["new", "consumer"], "chargeguard new consumer: ", /<dir> is missing/],
    [["audit", "--window", "5"], "chargeguard audit: ", /--window "5" is invalid; allowed: a duration/],
    [["dlq", "peek", "--queue", "q", "--connection-string", "garbage"], "chargeguard dlq peek: ", /--connection-string is not a Service Bus connection string/],
    [["bogus"], "chargeguard: ", /bogus is not a command; allowed: .*prove/],
  ];
  it.each(cases)("%j", (args, prefix, message) => {
    const result = run(args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.lines.length, result.stderr).toBeLessThanOrEqual(3);
    expect(result.lines[0]?.startsWith(prefix), result.stderr).toBe(true);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/^error:|Usage:|Options:/m);
    expect(result.stdout).toBe("");
  });

  it("dlq peek takes the queue from SERVICEBUS_QUEUE (sandbox.env sets it)", () => {
    // The queue is found, so the next check speaks: the malformed connection string, not a missing --queue.
    const result = run(["dlq", "peek", "--connection-string", "garbage"], { SERVICEBUS_QUEUE: "usage-billing" });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/--queue is required/);
    expect(result.stderr).toMatch(/not a Service Bus connection string/);
  });
});

describe("help", () => {
  const commands = [["plan"], ["new", "consumer"], ["sandbox"], ["prove"], ["dlq", "peek"], ["dlq", "resubmit"], ["reconcile"], ["scan"], ["audit"]];
  it.each(commands)("%s documents its exit codes, with no empty default", (...command) => {
    const result = run([...command, "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Exit codes:\n\s+0 .*\n(.*\n)*\s+2 +usage/);
    if (command[0] !== "sandbox") expect(result.stdout).toMatch(/130 +interrupted/);
    expect(result.stdout).not.toContain("(default: [])");
  });

  it("prove documents its third outcome, exit 3: did not settle (inconclusive)", () => {
    const help = run(["prove", "--help"]).stdout;
    expect(help).toMatch(/\n\s+1 +the generated consumer failed/);
    expect(help).toMatch(/\n\s+3 +did not settle \(inconclusive\)/);
  });

  it("audit shows --window's default with its unit", () => {
    expect(run(["audit", "--help"]).stdout).toMatch(/--window[\s\S]*default: 1h/);
  });
});
