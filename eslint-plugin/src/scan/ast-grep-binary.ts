import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ScanToolError } from "./errors.js";

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
