// The three packages are publishable: not private, the metadata npm shows, a README and licence in the tarball, and
// every export and bin pointing at a file the tarball carries (`npm pack --dry-run`, what `npm publish` would send).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { readMigrationFiles } from "../runtime/guard/migration-files.js";

const root = join(import.meta.dirname, "..");
const built = existsSync(join(root, "dist/cli/index.js")) && existsSync(join(root, "eslint-plugin/dist/index.js"));

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  engines?: { node?: string };
  repository?: { url?: string; directory?: string };
  bin?: Record<string, string>;
  exports?: Record<string, string | { types: string; default: string }>;
  publishConfig?: { provenance?: boolean };
}

function packed(directory: string): string[] {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: directory, encoding: "utf8" });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
}

describe.skipIf(!built)("publishable packages (after npm run build)", () => {
  for (const directory of [".", "eslint-plugin", "create-chargeguard"]) {
    it(`${directory === "." ? "chargeguard" : directory}`, () => {
      const dir = join(root, directory);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
      expect(manifest.private).toBeUndefined();
      expect(manifest.license).toBe("MIT");
      expect(manifest.repository?.url).toMatch(/^git\+https:\/\//);
      if (directory !== ".") expect(manifest.repository?.directory).toBe(directory);
      expect(manifest.publishConfig?.provenance).toBe(true);
      const files = packed(dir);
      expect(files).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE"]));
      const targets = [
        ...Object.values(manifest.bin ?? {}),
        ...Object.values(manifest.exports ?? {}).flatMap((target) => (typeof target === "string" ? [target] : [target.types, target.default])),
      ].map((target) => target.replace(/^\.\//, ""));
      for (const target of targets) expect(files, `${manifest.name}: ${target}`).toContain(target);
      expect(files.filter((file) => file.startsWith("test/") || file.startsWith("dist/bench/") || file.includes("node_modules"))).toEqual([]);
    });
  }

  it("chargeguard ships the guard's numbered migrations beside its compiled code, as the sources hold them", async () => {
    const sources = readdirSync(join(root, "runtime/guard/sql")).sort();
    expect(sources).toEqual(expect.arrayContaining(["000001.retired.sql", "schema.sql"]));
    const shipped = packed(root).filter((file) => file.startsWith("dist/runtime/guard/sql/"));
    expect(shipped.sort()).toEqual(sources.map((name) => `dist/runtime/guard/sql/${name}`));
    for (const name of sources) {
      expect(readFileSync(join(root, "dist/runtime/guard/sql", name), "utf8"), name).toBe(readFileSync(join(root, "runtime/guard/sql", name), "utf8"));
    }
    // The compiled reader finds them where it looks (beside itself), as an installed package would.
    const built = (await import(pathToFileURL(join(root, "dist/runtime/guard/migration-files.js")).href)) as typeof import("../runtime/guard/migration-files.js");
    expect(built.readMigrationFiles().map((file) => file.version)).toEqual(readMigrationFiles().map((file) => file.version));
  });

  it("chargeguard ships the template the scaffolder reads, tests included", () => {
    const files = packed(root);
    expect(files).toEqual(expect.arrayContaining(["templates/files/consumer/package.json", "templates/files/consumer/test/consumer.test.ts", "templates/files/consumer/_gitignore"]));
  });
});
