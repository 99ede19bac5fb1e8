import { readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Where an import of the project points on disk, without type information: a relative specifier (`./billing.js`
 * standing for `./billing.ts`, a directory's index) or a TypeScript path alias (`@/lib/stripe`, `~billing/*`) read
 * from the nearest tsconfig.json's `compilerOptions.paths` (its `extends` chain followed). Packages are not
 * resolved: the project's own code is what a summary is computed over. With a program, the checker answers instead.
 */
export function resolveSpecifier(fromFile: string, specifier: string): string | null {
  if (!path.isAbsolute(fromFile)) return null;
  if (specifier.startsWith(".")) return resolveFile(path.resolve(path.dirname(fromFile), specifier));
  for (const candidate of aliasTargets(path.dirname(fromFile), specifier)) {
    const file = resolveFile(candidate);
    if (file) return file;
  }
  return null;
}

const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx"];

/** Resolved paths (a file found stays found; a miss is looked for again, the file may have been created since). */
const resolved = new Map<string, string>();

/** TypeScript's resolution of a path: as written, `.js` standing for `.ts`, no extension, a directory's index. */
function resolveFile(base: string): string | null {
  const known = resolved.get(base);
  if (known && isFile(known)) return known;
  const stem = base.replace(/\.(m|c)?jsx?$/, "");
  const candidates = [base, ...EXTENSIONS.map((extension) => stem + extension), ...EXTENSIONS.map((extension) => path.join(base, `index${extension}`))];
  const found = candidates.find(isFile) ?? null;
  if (found) resolved.set(base, found);
  return found;
}

function isFile(candidate: string): boolean {
  return statSync(candidate, { throwIfNoEntry: false })?.isFile() ?? false;
}

/** A tsconfig's aliases: each pattern (`@/*`) with its targets made absolute (`/repo/src/*`). */
type Aliases = [pattern: string, targets: string[]][];

/** The aliases that apply in a directory, by directory (the nearest tsconfig.json's, checked by its mtime). */
const aliasesByDirectory = new Map<string, { config: string | null; mtimeMs: number; aliases: Aliases }>();

function aliasTargets(directory: string, specifier: string): string[] {
  const targets: string[] = [];
  for (const [pattern, paths] of aliasesIn(directory)) {
    const star = pattern.indexOf("*");
    const prefix = star < 0 ? pattern : pattern.slice(0, star);
    const suffix = star < 0 ? "" : pattern.slice(star + 1);
    if (star < 0 ? specifier !== pattern : !(specifier.startsWith(prefix) && specifier.endsWith(suffix) && specifier.length >= prefix.length + suffix.length)) continue;
    const captured = star < 0 ? "" : specifier.slice(prefix.length, specifier.length - suffix.length);
    targets.push(...paths.map((target) => target.replace("*", captured)));
  }
  return targets;
}

function aliasesIn(directory: string): Aliases {
  const known = aliasesByDirectory.get(directory);
  if (known && (known.config === null || statSync(known.config, { throwIfNoEntry: false })?.mtimeMs === known.mtimeMs)) return known.aliases;
  const config = nearestTsconfig(directory);
  const aliases = config ? readAliases(config, 0) : [];
  aliasesByDirectory.set(directory, { config, mtimeMs: config ? (statSync(config, { throwIfNoEntry: false })?.mtimeMs ?? 0) : 0, aliases });
  return aliases;
}

function nearestTsconfig(directory: string): string | null {
  for (let current = directory; ; current = path.dirname(current)) {
    const candidate = path.join(current, "tsconfig.json");
    if (isFile(candidate)) return candidate;
    if (path.dirname(current) === current) return null;
  }
}

interface TsconfigShape {
  extends?: string | string[];
  compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> };
}

/** `paths` resolve against `baseUrl` where one is set, else against the tsconfig that declares them (TypeScript 4.1+). */
function readAliases(config: string, depth: number): Aliases {
  const parsed = readTsconfig(config);
  if (!parsed) return [];
  const { baseUrl, paths } = parsed.compilerOptions ?? {};
  if (paths) {
    const base = path.resolve(path.dirname(config), baseUrl ?? ".");
    return Object.entries(paths).map(([pattern, targets]) => [pattern, targets.map((target) => path.resolve(base, target))]);
  }
  const parents = ([] as string[]).concat(parsed.extends ?? []).filter((parent) => parent.startsWith("."));
  return depth < 5 ? parents.flatMap((parent) => readAliases(path.resolve(path.dirname(config), parent.endsWith(".json") ? parent : `${parent}.json`), depth + 1)) : [];
}

/** tsconfig.json is JSON with comments and trailing commas: both are dropped before parsing (strings kept intact). */
function readTsconfig(file: string): TsconfigShape | null {
  try {
    const text = readFileSync(file, "utf8")
      .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (match, string: string | undefined) => string ?? "")
      .replace(/,(\s*[}\]])/g, "$1");
    return JSON.parse(text) as TsconfigShape;
  } catch {
    return null; // unreadable or not JSON: the project then has no aliases this analysis can follow
  }
}
