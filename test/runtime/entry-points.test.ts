// The runtime's entry points (package.json "exports"): a short root for a consumer's author and named subpaths for the
// rest. Each name has one home, so a reader never wonders which of two imports is the real one.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
const runtimeEntries = Object.keys(manifest.exports).filter((entry) => entry.startsWith("./runtime"));

async function valuesOf(entry: string): Promise<string[]> {
  const source = path.join(root, entry.slice(2), "index.ts");
  return Object.keys((await import(source)) as Record<string, unknown>);
}

describe("runtime entry points", () => {
  it("declares the root and its subpaths, each built from its own index.ts", () => {
    expect(runtimeEntries.sort()).toEqual(
      ["./runtime", "./runtime/audit", "./runtime/flows", "./runtime/guard", "./runtime/handler", "./runtime/operator", "./runtime/telemetry"].sort(),
    );
  });

  it("gives every exported value one entry point only", async () => {
    const home = new Map<string, string>();
    for (const entry of runtimeEntries) {
      for (const name of await valuesOf(entry)) {
        expect(home.get(name), `${name} is exported by ${home.get(name)} and ${entry}`).toBeUndefined();
        home.set(name, entry);
      }
    }
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
