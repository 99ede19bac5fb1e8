// `chargeguard prove` as CI runs it (the built CLI, spawned, stderr not a terminal): inputs refused before the run,
// progress as lines, a closing verdict, and the verdict in --json.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, runCli, type BuiltCli } from "../support/built-cli.js";

let cli: BuiltCli;
let scratch: string;

beforeAll(() => {
  cli = buildCli();
  scratch = mkdtempSync(join(tmpdir(), "chargeguard-prove-cli-"));
}, 180_000);
afterAll(() => {
  cli?.remove();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("chargeguard prove", () => {
  it("refuses bad input with exit 2 before running anything", async () => {
    const cases: [string[], string][] = [
      [["--events", "99999999999"], 'chargeguard prove: --events "99999999999" is invalid; allowed: a whole number from 1 to 1,000,000'],
      [["--replicas", "0"], '--replicas "0" is invalid; allowed: a whole number from 1 to'],
      [["--report", join(scratch, "missing-dir", "r.html")], "missing-dir does not exist or is not writable"],
      [["--report", scratch], "is a directory: give a file name"],
      [["--only", "nobody"], "unknown contender(s): nobody"],
      [["--faults", "gremlins"], "unknown fault(s): gremlins"],
      [["--full", "--events", "500"], "--full sets the events itself: give --full, or --events / --flow-events, not both"],
      [["--scenarios", "meteor"], "unknown scenario(s): meteor"],
      [["--no-chaos"], "--no-chaos leaves nothing to run: give --scenarios or --degraded"],
      // A password in a flag shows in ps (#44): refused as reconcile refuses it, naming the variable to use.
      [["--scenarios", "database-hang", "--database-url", "postgres://billing:Held@Out@127.0.0.1:9/db"], "--database-url carries a secret, which every user of this host can read from the process list: set TEST_DATABASE_URL"],
      [["--scenarios", "database-hang", "--database-url", "postgres://127.0.0.1:9/db?password=hunter22"], "set TEST_DATABASE_URL in the environment or pass --database-url-file"],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(cli, ["prove", ...args], { timeoutMs: 30_000 });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toContain(message);
      expect(run.stderr).not.toContain("proving ground:");
      expect(run.stdout).toBe("");
      expect(run.stderr).not.toMatch(/Held|hunter22/);
    }
  });

  it("says the default scale and --full in its help, and a reader closing the pipe early ends it quietly", async () => {
    const help = await runCli(cli, ["prove", "--help"], { timeoutMs: 30_000 });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--events <n>\s+billing events in the workload \(default: 500, or\s+10000 with --full\)/);
    expect(help.stdout).toMatch(/--full\s+the full proof: 10000 events/);
    expect(help.stdout).toMatch(/--degraded\s+also run every degraded scenario/);
    expect(help.stdout).toContain("stripe-outage");
    // `chargeguard prove --help | head -1`: the reader goes away; here before the first write, so the write meets EPIPE.
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [cli.path, "prove", "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on("close", (exitCode) => resolve(exitCode)));
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
  });

  it("Ctrl-C mid-run: one line and exit 130 (was silent)", async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [cli.path, "prove", "--events", "120", "--only", "generated-consumer", "--faults", "none", "--no-report"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    const started = new Promise<void>((resolve) =>
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes("running generated-consumer")) resolve();
      }),
    );
    const code = new Promise<number | null>((resolve) => child.on("close", (exitCode) => resolve(exitCode)));
    await started;
    child.kill("SIGINT");
    expect(await code, stderr).toBe(130);
    expect(stderr.trim().split("\n").at(-1)).toBe("proving ground: interrupted (Ctrl-C): no verdict; nothing is kept between runs but the database template cache");
  }, 120_000);

  it("runs a short proof: progress lines off a terminal, the verdict last, and in --json", async () => {
    const report = join(scratch, "prove.html");
    const run = await runCli(cli, ["prove", "--events", "120", "--only", "generated-consumer", "--faults", "none", "--json", "--report", report], {
      timeoutMs: 180_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.trim().split("\n");
    expect(lines[0]).toBe("proving ground: 0%, 0/1 done, running generated-consumer");
    expect(lines).toContain("proving ground: 100%, 1/1 done");
    expect(run.stderr).not.toMatch(/\d+\/1 done.*\b2\/1\b|[2-9]\/1 done/);
    expect(lines.at(-1)).toBe(`proving ground: PASSED: the generated consumer passed; report: ${report}`);
    const json = JSON.parse(run.stdout) as { passed: boolean; contenders: { name: string; verdict: string; malformed: { events: number; deadLettered: number; charged: number } }[] };
    expect(json.passed).toBe(true);
    const [generated] = json.contenders;
    expect(generated?.verdict).toMatch(/^PASS/);
    expect(generated?.malformed.charged).toBe(0);
    expect(generated?.malformed.deadLettered).toBe(generated?.malformed.events);
  }, 200_000);

  it("in a terminal's text mode: the compact table, and the HTML report written by default and named last", async () => {
    const cwd = mkdtempSync(join(scratch, "default-report-"));
    const run = await runCli(cli, ["prove", "--events", "60", "--flow-events", "30", "--only", "generated-consumer,random-uuid-key", "--faults", "none"], { cwd, timeoutMs: 180_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^contender +flow +duplicates +lost +over-cap +verdict$/m);
    expect(run.stdout).toMatch(/^random-uuid-key +payment-intent .*FAIL \(expected: a broken example\)$/m);
    expect(run.stdout).toMatch(/^generated-consumer \(generated\) +payment-intent +0 +0 .*PASS$/m);
    expect(run.stdout).not.toContain("deliveries");
    expect(run.stderr.trim().split("\n").at(-1)).toMatch(/^proving ground: PASSED: .*; report: prove-report\.html$/);
    expect(readFileSync(join(cwd, "prove-report.html"), "utf8")).toContain("<html");
  }, 200_000);
});
