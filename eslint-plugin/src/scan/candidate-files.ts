import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { AstGrepMatch } from "./finding.js";

/** Directories that hold no project source (dependencies, builds, caches, virtual environments). */
const SKIPPED = new Set(["node_modules", ".git", ".venv", "venv", "env", "__pycache__", "dist", "build", "target", ".tox", ".mypy_cache", "site-packages"]);
const SOURCE = /\.(py|java)$/;
/** Past this many files the list would not fit a command line: the caller scans its targets instead. */
const MAX_FILES = 1500;

/**
 * The Python and Java files under `targets` whose text names one of `names` as a word: the only files where a call
 * of a marked function can be. `null` when there are too many to pass to ast-grep by name.
 */
export function candidateFiles(targets: readonly string[], cwd: string, names: readonly string[]): string[] | null {
  const wanted = [...new Set(names.filter((name) => /^[\w$]+$/.test(name)))];
  if (wanted.length === 0) return [];
  const pattern = new RegExp(`\\b(?:${wanted.map((name) => name.replace(/\$/g, "\\$")).join("|")})\\b`);
  const found: string[] = [];
  const visit = (entry: string): boolean => {
    const stat = statSync(entry, { throwIfNoEntry: false });
    if (!stat) return true;
    if (stat.isDirectory()) {
      if (SKIPPED.has(path.basename(entry))) return true;
      return readdirSync(entry).every((child) => visit(path.join(entry, child)));
    }
    if (SOURCE.test(entry) && pattern.test(readFileSync(entry, "utf8"))) found.push(path.relative(cwd, entry) || entry);
    return found.length <= MAX_FILES;
  };
  return targets.every((target) => visit(path.resolve(cwd, target))) ? found : null;
}

/**
 * The files the second run must read: the call sites of the project's marks are Stripe calls that move money (a key
 * from an unstable function, params or options from a keyless factory: the files the first run marked `charges`) or
 * calls of a money wrapper (the files that name one). Not every file naming a marked function: in a large project
 * most functions returning a dict are params factories by shape (saleor: about 170) and never reach Stripe.
 */
export function secondRunFiles(matches: readonly AstGrepMatch[], targets: readonly string[], cwd: string): string[] | null {
  const wrappers = matches.filter((match) => match.metadata?.role === "money-wrapper").map((match) => match.metaVariables?.single?.NAME?.text ?? "");
  const callers = wrappers.length > 0 ? candidateFiles(targets, cwd, wrappers) : [];
  if (callers === null) return null;
  const charging = matches.filter((match) => match.metadata?.role === "charges").map((match) => match.file);
  return [...new Set([...charging, ...callers].map((file) => path.relative(cwd, path.resolve(cwd, file)) || file))];
}
