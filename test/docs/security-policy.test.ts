// SECURITY.md says what the kit protects, what it assumes, how to report a problem and where the advisory data comes
// from; the README links it, and every file it names exists.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

describe("SECURITY.md", () => {
  it("covers protection, assumptions, reporting and the advisory check, and the README links it", () => {
    const policy = readFileSync(path.join(root, "SECURITY.md"), "utf8");
    for (const heading of ["## What it protects", "## What it assumes", "## Reporting a problem", "## Dependency advisories"]) expect(policy).toContain(heading);
    for (const subject of ["**Keys.**", "**Money.**", "**Operators.**"]) expect(policy).toContain(subject);
    expect(readFileSync(path.join(root, "README.md"), "utf8")).toContain("[SECURITY.md](SECURITY.md)");
  });

  it("names only files that exist", () => {
    const policy = readFileSync(path.join(root, "SECURITY.md"), "utf8");
    const named = [...policy.matchAll(/(?<![\w/])((?:runtime|scripts|cli|test)\/[\w./-]+\.(?:ts|mjs|json))/g)].map((match) => match[1] as string);
    expect(named.length).toBeGreaterThan(3);
    for (const file of named) expect(existsSync(path.join(root, file)), file).toBe(true);
  });

  it("names, for each promise in its table, a test file and a test title that exist (#44)", () => {
    const policy = readFileSync(path.join(root, "SECURITY.md"), "utf8");
    const section = policy.slice(policy.indexOf("## Promises and the tests that hold them"), policy.indexOf("## What it assumes"));
    const rows = section.split("\n").filter((line) => /^\| .* \| test\/.*\.test\.ts \| .* \|$/.test(line));
    expect(rows.length).toBeGreaterThanOrEqual(15);
    for (const row of rows) {
      const [, file, title] = row.split(" | ").map((cell) => cell.replace(/^\| |\s*\|$/g, "").trim()) as [string, string, string];
      expect(existsSync(path.join(root, file)), row).toBe(true);
      const source = readFileSync(path.join(root, file), "utf8");
      expect(source.includes(`it("${title}`) || source.includes(`it.each(`) && source.includes(title), `${file}: no test titled "${title}..."`).toBe(true);
    }
  });
});
