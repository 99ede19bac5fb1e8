import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { resolveSpecifier } from "./module-resolution.js";

/**
 * The files of the project that import a given file, read once per lint run: how a module with no context of its own
 * (a BullMQ processor exported to a worker made in another file, a handler registered by a consumer elsewhere) gets
 * the context of the file that runs it (#42). The project is the directory of the nearest tsconfig.json or
 * package.json; dependencies and builds are skipped; past MAX_FILES nothing is read (the file keeps its own context).
 */
const SKIPPED = new Set(["node_modules", ".git", "dist", "build", "coverage", ".next", "out"]);
const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const MAX_FILES = 5000;
const SPECIFIERS = /\bfrom\s+["']([^"']+)["']|\brequire\(\s*["']([^"']+)["']\s*\)|\bimport\(\s*["']([^"']+)["']\s*\)/g;

const projects = new Map<string, { file: string; text: string }[] | null>();

/** The texts of the project's files that import `file` and whose text `wanted` matches. */
export function importersOf(file: string, wanted: RegExp): string[] {
  const root = projectRoot(path.dirname(file));
  if (root === null) return [];
  if (!projects.has(root)) projects.set(root, sourcesUnder(root));
  const found: string[] = [];
  for (const source of projects.get(root) ?? []) {
    if (source.file === file || !wanted.test(source.text)) continue;
    for (const match of source.text.matchAll(SPECIFIERS)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? "";
      if (resolveSpecifier(source.file, specifier) === file) {
        found.push(source.text);
        break;
      }
    }
  }
  return found;
}

function projectRoot(directory: string): string | null {
  for (let current = directory; ; current = path.dirname(current)) {
    if (["tsconfig.json", "package.json"].some((name) => statSync(path.join(current, name), { throwIfNoEntry: false })?.isFile())) return current;
    if (path.dirname(current) === current) return null;
  }
}

function sourcesUnder(root: string): { file: string; text: string }[] | null {
  const sources: { file: string; text: string }[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) pending.push(path.join(directory, entry.name));
      else if (entry.isFile() && SOURCE.test(entry.name)) sources.push({ file: path.join(directory, entry.name), text: readFileSync(path.join(directory, entry.name), "utf8") });
      if (sources.length > MAX_FILES) return null;
    }
  }
  return sources;
}
