import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ScanToolError } from "./errors.js";
import type { AstGrepMatch } from "./finding.js";

const require = createRequire(import.meta.url);

/** `@ast-grep/cli`'s platform packages (its optional dependencies), by `${platform}-${arch}`. */
const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  "linux-x64": "@ast-grep/cli-linux-x64-gnu",
  "linux-arm64": "@ast-grep/cli-linux-arm64-gnu",
  "darwin-x64": "@ast-grep/cli-darwin-x64",
  "darwin-arm64": "@ast-grep/cli-darwin-arm64",
  "win32-x64": "@ast-grep/cli-win32-x64-msvc",
  "win32-arm64": "@ast-grep/cli-win32-arm64-msvc",
  "win32-ia32": "@ast-grep/cli-win32-ia32-msvc",
};

/**
 * The ast-grep executable: the platform package's binary (present even where install scripts are not allowed to
 * run), else the one `@ast-grep/cli`'s postinstall copies beside its launcher.
 */
export function astGrepBinary(): string {
  const executable = process.platform === "win32" ? "ast-grep.exe" : "ast-grep";
  const candidates = [PLATFORM_PACKAGES[`${process.platform}-${process.arch}`], "@ast-grep/cli"].filter((name) => name !== undefined);
  for (const name of candidates) {
    try {
      const binary = path.join(path.dirname(require.resolve(`${name}/package.json`)), executable);
      if (existsSync(binary)) return binary;
    } catch {
      // not installed for this platform: try the next
    }
  }
  throw new ScanToolError(
    `ast-grep is not installed for ${process.platform}-${process.arch}: reinstall eslint-plugin-chargeguard (it depends on @ast-grep/cli) with optional dependencies enabled`,
  );
}

/** Runs ast-grep with `args` in `cwd`; resolves with its output and exit code (a failure to start is a tool error). */
export function runAstGrep(args: string[], cwd: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(astGrepBinary(), args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => reject(new ScanToolError(`could not run ast-grep: ${error.message}`, { cause: error })));
    child.on("close", (code) => resolve({ stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8"), code }));
  });
}

/** The matches ast-grep printed with `--json=compact`. */
export function parseMatches(stdout: string): AstGrepMatch[] {
  try {
    return JSON.parse(stdout.trim() || "[]") as AstGrepMatch[];
  } catch (error) {
    throw new ScanToolError("ast-grep printed output that is not JSON", { cause: error });
  }
}
