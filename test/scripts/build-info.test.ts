// `npm run build` is incremental (tsc -b): its build information must not outlive the outputs it vouches for, or a
// deleted dist/ folder would never be written again.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { dropBuildInfoWithoutOutputs } from "../../scripts/build-info.mjs";

const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A two-file project built as the kit's is: incremental, its build information in its outDir. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), "build-info-"));
  roots.push(root);
  mkdirSync(join(root, "src", "inner"), { recursive: true });
  writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "src", "inner", "b.ts"), "export const b = 2;\n");
  const compilerOptions = { rootDir: ".", outDir: "dist", incremental: true, tsBuildInfoFile: "dist/.tsbuildinfo", module: "NodeNext", target: "ES2022", types: [] };
  writeFileSync(join(root, "tsconfig.build.json"), JSON.stringify({ compilerOptions, include: ["src"] }));
  return root;
}

const build = (root: string) => execFileSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: root });

describe("dropBuildInfoWithoutOutputs", () => {
  it("keeps the build information while every source file has its JavaScript", () => {
    const root = project();
    build(root);
    expect(dropBuildInfoWithoutOutputs(root, "tsconfig.build.json")).toBe(false);
    expect(existsSync(join(root, "dist", ".tsbuildinfo"))).toBe(true);
  });

  it("drops it when an output was deleted, so the next build writes it again (tsc -b alone does not)", () => {
    const root = project();
    build(root);
    rmSync(join(root, "dist", "src", "inner"), { recursive: true });
    build(root);
    expect(existsSync(join(root, "dist", "src", "inner", "b.js"))).toBe(false);
    expect(dropBuildInfoWithoutOutputs(root, "tsconfig.build.json")).toBe(true);
    expect(existsSync(join(root, "dist", ".tsbuildinfo"))).toBe(false);
    build(root);
    expect(existsSync(join(root, "dist", "src", "inner", "b.js"))).toBe(true);
  });

  it("does nothing before the first build", () => {
    expect(dropBuildInfoWithoutOutputs(project(), "tsconfig.build.json")).toBe(false);
  });
});
