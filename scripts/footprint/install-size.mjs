// The size of an installed node_modules and the packages a consumer must not carry: shared by bench:footprint and the
// packed-install test, so both judge an install by one rule.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

/**
 * Issue 32's goals for a `--db postgres` consumer's production install (du of node_modules, MiB): the whole tree,
 * and the chargeguard package itself (its own files; its dependencies are counted in the whole).
 */
export const SIZE_GOALS = { production: 150 * 1048576, chargeguard: 10 * 1048576 };

/** Packages no consumer's production install may hold; PGlite only when it chose the embedded database. */
export function forbiddenPackages(database) {
  return ["@pulumi", "typescript", ...(database === "pglite" ? [] : ["@electric-sql/pglite"])];
}

/** Bytes on disk under `target`, as `du -sk` counts them (the figure a `du -sh node_modules` reader compares). */
export function sizeOf(target) {
  return Number(execFileSync("du", ["-sk", target], { encoding: "utf8" }).split("\t")[0]) * 1024;
}

/** Every installed package directory's name under `modules`, nested ones included ("@scope/name"). */
export function installedPackages(modules) {
  const names = [];
  if (!existsSync(modules)) return names;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith(".")) continue;
    const scoped = entry.startsWith("@");
    for (const name of scoped ? readdirSync(path.join(modules, entry)).map((inner) => `${entry}/${inner}`) : [entry]) {
      names.push(name, ...installedPackages(path.join(modules, name, "node_modules")));
    }
  }
  return names;
}

/** The forbidden packages present anywhere in `modules`, by name. */
export function forbiddenIn(modules, database) {
  const rules = forbiddenPackages(database);
  const hit = (name) => rules.some((rule) => name === rule || name.startsWith(`${rule}/`));
  return [...new Set(installedPackages(modules).filter(hit))].sort();
}

/** Top-level groups (a scope, or an unscoped package) with their sizes, biggest first. */
export function groupSizes(modules) {
  return readdirSync(modules)
    .filter((entry) => !entry.startsWith("."))
    .map((entry) => [entry, sizeOf(path.join(modules, entry))])
    .sort((a, b) => b[1] - a[1]);
}
