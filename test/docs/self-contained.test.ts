// The project explains itself: nothing in it may point at a document that lives beside the checkout (the brief it
// grew from, a workplace folder). ARCHITECTURE.md is the map, and every room's README links to it.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
// This file names the patterns it looks for.
const self = path.relative(root, import.meta.filename);

describe("the project stands alone", () => {
  it("points at no document outside the checkout", () => {
    const outside = /\.\.\/shared\b|\bshared\/(design|facts|seeds)|\bdesign\.md\b/;
    const offenders = tracked
      .filter((file) => /\.(ts|mts|mjs|js|md|json|ya?ml)$/.test(file) && file !== self && existsSync(path.join(root, file)))
      .flatMap((file) =>
        readFileSync(path.join(root, file), "utf8")
          .split("\n")
          .flatMap((line, index) => (outside.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders).toEqual([]);
  });

  it("has ARCHITECTURE.md, and every room's README links to it", () => {
    expect(existsSync(path.join(root, "ARCHITECTURE.md"))).toBe(true);
    const readmes = tracked.filter((file) => /^[^/]+\/README\.md$/.test(file) && !file.startsWith("examples/generated"));
    expect(readmes.length).toBeGreaterThanOrEqual(8);
    const missing = readmes.filter((file) => !readFileSync(path.join(root, file), "utf8").includes("ARCHITECTURE.md"));
    expect(missing).toEqual([]);
  });
});
