// What loading the runtime costs: the built entry points a consumer imports (package.json "exports" ./runtime*) and
// the operator commands reach, through static imports, only packages chargeguard installs with itself ("dependencies").
// Pulumi is an optional peer and PGlite the consumer's own dependency (ARCHITECTURE.md, "Packages and who installs them"): reaching one statically
// would make every consumer install it, or fail to start without it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { packagesReached } from "../support/static-imports.js";

const root = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  exports: Record<string, { default: string } | string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const runtimeEntries = Object.entries(manifest.exports)
  .filter(([entry]) => entry.startsWith("./runtime"))
  .map(([, target]) => path.join(root, typeof target === "string" ? target : target.default));
const operatorCommands = ["audit", "dlq", "reconcile"].map((command) => path.join(root, "dist/cli/commands", `${command}.js`));
const built = [...runtimeEntries, ...operatorCommands].every((file) => existsSync(file));

describe.skipIf(!built)("static imports of the built runtime (after npm run build)", () => {
  it("the runtime's entry points reach only chargeguard's own dependencies, no optional peer", () => {
    const reached = packagesReached(runtimeEntries);
    const outside = [...reached].filter(([name]) => !(name in manifest.dependencies)).map(([name, from]) => `${name} (from ${from})`);
    expect(outside).toEqual([]);
    expect(reached.size).toBeGreaterThan(3); // the scan found the runtime's real imports (pg, stripe, zod, ...)
  });

  it("neither the runtime nor the operator commands reach @pulumi/*, @electric-sql/pglite or typescript", () => {
    const reached = [...packagesReached([...runtimeEntries, ...operatorCommands]).keys()];
    expect(reached.filter((name) => name.startsWith("@pulumi/") || name === "@electric-sql/pglite" || name === "typescript")).toEqual([]);
  });

  it("Pulumi is an optional peer and PGlite the consumer's own choice, neither a dependency", () => {
    for (const peer of ["@pulumi/pulumi", "@pulumi/azure-native", "@pulumi/policy"]) expect(manifest.peerDependencies[peer], peer).toBeDefined();
    for (const name of ["@pulumi/pulumi", "@pulumi/azure-native", "@pulumi/policy", "@electric-sql/pglite"]) expect(manifest.dependencies[name], name).toBeUndefined();
    expect(manifest.peerDependencies["@electric-sql/pglite"]).toBeUndefined();
  });

  it("the scan does see a static import of a peer (the infra entry imports @pulumi/pulumi)", () => {
    expect([...packagesReached([path.join(root, "dist/infra/index.js")]).keys()]).toContain("@pulumi/pulumi");
  });
});
