// `chargeguard scan`: thin over eslint-plugin-chargeguard/scan (built: `npm run build` first), so these check the
// wiring, the exit codes (1 found, 0 clean, 2 usage) and the JSON output.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, describe, expect, it, vi } from "vitest";
import { register } from "../../cli/commands/scan.js";

const fixtures = "eslint-plugin/tests/scan-fixtures";

afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

async function run(...args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number | undefined }> {
  const program = new Command("chargeguard").exitOverride();
  register(program);
  const stdout: string[] = [];
  const stderr: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: unknown) => void stdout.push(String(line)));
  vi.spyOn(console, "error").mockImplementation((line: unknown) => void stderr.push(String(line)));
  await program.parseAsync(["node", "chargeguard", "scan", ...args]);
  const exitCode = process.exitCode === undefined ? undefined : Number(process.exitCode);
  return { stdout: stdout.join("\n"), stderr: stderr.join("\n"), exitCode };
}

describe("chargeguard scan", () => {
  it("exits 1 and prints [{ ruleId, file, line, message }] when it finds something", async () => {
    const { stdout, exitCode } = await run(`${fixtures}/java/broken/ShortLockRenewal.java`, "--format", "json");
    expect(exitCode).toBe(1);
    const findings = JSON.parse(stdout) as { ruleId: string; file: string; line: number; message: string }[];
    expect(findings).toContainEqual({
      ruleId: "chargeguard/no-receive-and-delete",
      file: `${fixtures}/java/broken/ShortLockRenewal.java`,
      line: 32,
      message: expect.stringContaining("RECEIVE_AND_DELETE"),
    });
    expect(Object.keys(findings[0] ?? {}).sort()).toEqual(["file", "line", "message", "ruleId"]);
  });

  it("exits 0 on clean code", async () => {
    const { stdout, exitCode } = await run(`${fixtures}/python/fixed`, `${fixtures}/java/fixed`);
    expect(exitCode).toBe(0);
    expect(stdout).toBe("chargeguard scan: no findings");
  });

  it("exits 2 on an unknown format or a missing path", async () => {
    const format = await run(fixtures, "--format", "xml");
    expect(format.exitCode).toBe(2);
    expect(format.stderr).toContain('unknown format "xml"');
    const missing = await run(`${fixtures}/nowhere`);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("no such file or directory");
  });

  it("escapes terminal control bytes in scanned file names, in every format (#44)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chargeguard-scan-"));
    try {
      const broken = `${fixtures}/python/broken`;
      const source = readdirSync(broken).find((name) => name.endsWith(".py")) as string;
      const hostile = "\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e.py";
      copyFileSync(join(broken, source), join(dir, hostile));
      for (const format of ["text", "json", "sarif"]) {
        const { stdout, exitCode } = await run(dir, "--format", format);
        expect(exitCode, stdout).toBe(1);
        expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
        // SARIF names files by URI (percent-encoded); text and JSON print the name, escaped as JSON spells it.
        expect(stdout).toContain(format === "sarif" ? "pwned" : "\\u001b]0;pwned");
        if (format !== "text") expect(JSON.stringify(JSON.parse(stdout))).toContain("pwned");
      }
      const missing = await run(join(dir, "\u001b]0;gone\u0007"));
      expect(missing.exitCode).toBe(2);
      expect(missing.stderr).not.toContain("\u001b");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
