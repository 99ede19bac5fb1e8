// The release's clean-build check (scripts/compare-packs.mjs): tarballs whose files match byte for byte pass; one file
// changed, added or missing, or a tarball missing, fails (exit 1) naming it, so the publish job never starts.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const script = path.resolve(import.meta.dirname, "../../scripts/compare-packs.mjs");
const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-compare-packs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A directory holding `name`.tgz packed the way npm packs (files under package/). */
function packedDir(label: string, name: string, files: Record<string, string>): string {
  const dir = path.join(scratch, label);
  const tree = path.join(scratch, `${label}-tree`);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tree, "package", file)), { recursive: true });
    writeFileSync(path.join(tree, "package", file), content);
  }
  mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["-czf", path.join(dir, `${name}.tgz`), "-C", tree, "package"]);
  return dir;
}

function compare(a: string, b: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => execFile(process.execPath, [script, a, b], (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout })));
}

const files = { "package.json": '{"name":"chargeguard"}', "dist/cli/index.js": "console.log(1);\n", "dist/published.json": "{}" };

describe("compare-packs", () => {
  it("passes when every tarball holds the same files, byte for byte", async () => {
    const run = await compare(packedDir("same-a", "chargeguard-1.0.0", files), packedDir("same-b", "chargeguard-1.0.0", files));
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain("every tarball matches the clean build");
  });

  it("fails naming a changed file, an added file and a missing tarball", async () => {
    const tampered = packedDir("tampered", "chargeguard-1.0.0", { ...files, "dist/cli/index.js": "fetch('https://evil.invalid');\n", "dist/extra.js": "" });
    writeFileSync(path.join(tampered, "create-chargeguard-1.0.0.tgz"), "");
    const run = await compare(tampered, packedDir("clean", "chargeguard-1.0.0", files));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("chargeguard-1.0.0.tgz: package/dist/cli/index.js differs from the clean build");
    expect(run.stdout).toContain("chargeguard-1.0.0.tgz: package/dist/extra.js is not in the clean build");
    expect(run.stdout).toContain("create-chargeguard-1.0.0.tgz: not in the clean build");
    expect(run.stdout).toContain("not published");
  });
});
