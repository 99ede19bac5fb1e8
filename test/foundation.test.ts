import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("toolchain pins", () => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    devDependencies: Record<string, string>;
    engines: { node: string };
  };

  it("pins TypeScript to 5.9 (TypeScript 7 has no compiler API)", () => {
    expect(pkg.devDependencies.typescript).toBe("~5.9.3");
  });

  it("uses one version for every @typescript-eslint package", () => {
    const versions = new Set(
      Object.entries(pkg.devDependencies)
        .filter(([name]) => name.startsWith("@typescript-eslint/") || name === "typescript-eslint")
        .map(([, version]) => version),
    );
    expect(versions.size).toBe(1);
  });
});
