// The package's entry points (package.json "exports"): the runtime's short root for a consumer's author and named
// subpaths for the rest, and one door per room (infra, sandbox, templates, tuning). Each name has one home across all
// of them, so a reader never wonders which of two imports is the real one (infra once re-exported tuning's names).
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
const codeEntries = Object.keys(manifest.exports).filter((entry) => entry !== "./package.json");
const runtimeEntries = codeEntries.filter((entry) => entry.startsWith("./runtime"));

async function valuesOf(entry: string): Promise<string[]> {
  const source = path.join(root, entry.slice(2), "index.ts");
  return Object.keys((await import(source)) as Record<string, unknown>);
}

describe("package entry points", () => {
  it("declares the root and its subpaths, each built from its own index.ts", () => {
    expect(runtimeEntries.sort()).toEqual(
      ["./runtime", "./runtime/audit", "./runtime/flows", "./runtime/guard", "./runtime/handler", "./runtime/operator", "./runtime/telemetry"].sort(),
    );
  });

  it("declares one door per room beside the runtime's, each built from its own index.ts", () => {
    expect(codeEntries.filter((entry) => !runtimeEntries.includes(entry)).sort()).toEqual(["./infra", "./sandbox", "./templates", "./tuning"]);
  });

  it("gives every exported value one entry point only, across every door of the package", async () => {
    const doors = new Map<string, string[]>();
    for (const entry of codeEntries) {
      for (const name of await valuesOf(entry)) doors.set(name, [...(doors.get(name) ?? []), entry]);
    }
    const shared = [...doors].filter(([, entries]) => entries.length > 1).map(([name, entries]) => `${name}: ${entries.join(", ")}`);
    expect(shared).toEqual([]);
  });

  it("leaves tuning's names to the tuning door: infra exports none of them", async () => {
    const infra = await valuesOf("./infra");
    const tuning = await valuesOf("./tuning");
    expect(tuning).toEqual(expect.arrayContaining(["tuneQueue", "replicaBounds", "parseIsoDuration", "consumerQueueRights"]));
    expect(infra).toEqual(expect.arrayContaining(["BillingQueue", "loadStackConfig", "builtInRoles"]));
    expect(infra.filter((name) => tuning.includes(name))).toEqual([]);
  });

  it("keeps the root to what a consumer's author needs: the consumer, flows, Guard, keys, vault keys, errors", async () => {
    const rootValues = await valuesOf("./runtime");
    expect(rootValues).toEqual(expect.arrayContaining(["startBillingConsumer", "Guard", "stableKey", "ChargeguardError"]));
    for (const advanced of ["BillingGuard", "createBillingHandler", "reconcile", "peekDeadLetters", "metricNames"]) {
      expect(rootValues).not.toContain(advanced);
    }
    expect(rootValues.length).toBeLessThanOrEqual(45);
  });
});

/** Every name each door exports, types included, as the compiler sees the door's index.ts. */
function namesOfEveryDoor(entries: string[]): Map<string, string[]> {
  const files = entries.map((entry) => path.join(root, entry.slice(2), "index.ts"));
  const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const doors = new Map<string, string[]>();
  entries.forEach((entry, index) => {
    const module = checker.getSymbolAtLocation(program.getSourceFile(files[index]!)!)!;
    for (const exported of checker.getExportsOfModule(module)) doors.set(exported.name, [...(doors.get(exported.name) ?? []), entry]);
  });
  return doors;
}

describe("package entry points' types", () => {
  it("gives every exported name, types included, one entry point only, across every door of the package", () => {
    const doors = namesOfEveryDoor(codeEntries);
    // The compiler saw the doors' types, not only their values.
    for (const typeName of ["BillingConsumerOptions", "GuardOutcome", "VaultKeyProvider", "StripeCallObserver"]) expect(doors.has(typeName)).toBe(true);
    const shared = [...doors].filter(([, entries]) => entries.length > 1).map(([name, entries]) => `${name}: ${entries.join(", ")}`);
    expect(shared).toEqual([]);
  });
});
