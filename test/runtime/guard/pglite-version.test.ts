// pglite-prepared.ts uses PGlite internals no semver covers: this fails loudly, naming what to re-check, the moment
// another PGlite version is installed or pinned, instead of the guard misbehaving quietly. (Whether the internals
// still behave is pglite-prepared.test.ts's job.)
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { pgliteVersionVerified } from "../../../runtime/guard/pglite-prepared.js";

const upgrade = `runtime/guard/pglite-prepared.ts was written against PGlite ${pgliteVersionVerified}'s internals: read runtime/README.md "Upgrading PGlite" before changing the version`;

function installedPgliteVersion(): string {
  // The package exports no package.json: walk up from its entry point (node_modules/@electric-sql/pglite/dist/...).
  let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (!dir.endsWith(join("@electric-sql", "pglite"))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

describe("the PGlite version the prepared statements rely on", () => {
  it("is the one installed", () => {
    expect(installedPgliteVersion(), upgrade).toBe(pgliteVersionVerified);
  });

  it("is the one package.json pins, exactly (a devDependency: the scaffolder copies it into generated projects)", () => {
    const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as Record<string, Record<string, string>>;
    expect(manifest.devDependencies?.["@electric-sql/pglite"], upgrade).toBe(pgliteVersionVerified);
    expect(manifest.dependencies?.["@electric-sql/pglite"], upgrade).toBeUndefined();
  });

});
