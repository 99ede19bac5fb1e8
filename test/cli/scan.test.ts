// `chargeguard scan`: thin over eslint-plugin-chargeguard/scan (built: `npm run build` first), so these check the
// wiring, the exit codes (1 found, 0 clean, 2 usage) and the JSON output.
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
});
