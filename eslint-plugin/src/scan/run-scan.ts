import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseMatches, runAstGrep } from "./ast-grep-binary.js";
import { ScanToolError, ScanUsageError } from "./errors.js";
import type { AstGrepMatch, Finding } from "./finding.js";
import { wrapperCallMatches } from "./java-wrappers.js";
import { withCallWording } from "./call-wording.js";
import { reworded } from "./delivery-context.js";
import { applyProjectFacts } from "./project-facts.js";
import { springPropertiesMatches } from "./spring-properties.js";
import { isTestFile, LIVE_KEY } from "../utils/test-file.js";

/** The rules: `eslint-plugin/ast-grep/` beside `src/` and `dist/` alike. */
export const SCAN_CONFIG = fileURLToPath(new URL("../../ast-grep/sgconfig.yml", import.meta.url));

export interface ScanOptions {
  /** Where relative paths start and findings' paths are relative to (default: the process's directory). */
  cwd?: string;
}


/**
 * Runs the Python, Java and Spring YAML and properties rules over `paths` (files or directories; default: the current directory)
 * and returns the findings, sorted by file and line; the paths are one project (see project-facts). A path that
 * does not exist is a usage error; ast-grep failing is a tool error.
 */
export async function runScan(paths: readonly string[], options: ScanOptions = {}): Promise<Finding[]> {
  const cwd = options.cwd ?? process.cwd();
  const targets = paths.length > 0 ? [...paths] : ["."];
  const missing = targets.filter((target) => !existsSync(path.resolve(cwd, target)));
  if (missing.length > 0) throw new ScanUsageError(`no such file or directory: ${missing.join(", ")}`);
  const { stdout, stderr, code } = await runAstGrep(["scan", "--config", SCAN_CONFIG, "--json=compact", "--include-metadata", "--", ...targets], cwd);
  // ast-grep exits 1 when it found error-level matches; anything else but 0 is a failure.
  if (code !== 0 && code !== 1) throw new ScanToolError(`ast-grep failed (exit ${code}): ${stderr.trim().split("\n")[0] ?? ""}`);
  const matches = parseMatches(stdout);
  const wrapperCalls = await wrapperCallMatches(matches, targets, cwd);
  const texts = new Map<string, string>();
  return applyProjectFacts([...matches, ...wrapperCalls, ...springPropertiesMatches(targets, cwd)])
    .filter(outsideTests)
    .map((match) => toFinding({ ...match, message: withCallWording(reworded(match.message, match.file, match.language, cwd, texts), match.lines) }, cwd))
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

/**
 * In a test or mock file (test_*.py, conftest.py, Maven's src/test/, *Test.java) only a live key is a finding: the
 * calls there run against mocks or Stripe's test mode, and a test-mode key there is not a leak (utils/test-file.ts).
 */
function outsideTests(match: AstGrepMatch): boolean {
  return !isTestFile(match.file) || (match.ruleId.startsWith("no-stripe-secret-literal") && LIVE_KEY.test(match.text));
}

function toFinding(match: AstGrepMatch, cwd: string): Finding {
  const absolute = path.resolve(cwd, match.file);
  const relative = path.relative(cwd, absolute);
  return {
    ruleId: `chargeguard/${match.ruleId.split("@")[0]}`,
    file: relative && !relative.startsWith("..") ? relative.split(path.sep).join("/") : absolute,
    line: match.range.start.line + 1,
    column: match.range.start.column + 1,
    message: match.message,
    language: match.language.toLowerCase(),
  };
}
