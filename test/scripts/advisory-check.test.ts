// The offline advisory check (scripts/advisory-check.mjs): a CycloneDX SBOM matched against the committed dataset.
// A production tree with today's template telemetry (protobufjs 8.0.1 through @opentelemetry/sdk-node 0.217.0) fails;
// the versions the template pins now pass.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { affected, compareVersions, componentsOf, findings } from "../../scripts/advisory-check.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const script = path.join(root, "scripts/advisory-check.mjs");
const dataset = JSON.parse(readFileSync(path.join(root, "scripts/advisories/known-advisories.json"), "utf8")) as { retrieved: string; advisories: { id: string }[] };
const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-advisory-check-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function sbom(components: { group?: string; name: string; version: string }[]): string {
  const file = path.join(scratch, `sbom-${components.map((c) => `${c.name}-${c.version}`).join("_")}.json`);
  writeFileSync(file, JSON.stringify({ bomFormat: "CycloneDX", specVersion: "1.5", components: components.map((c) => ({ type: "library", ...c })) }));
  return file;
}

function check(file: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, "--sbom", file], (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }));
  });
}

describe("advisory check", () => {
  it("compares versions and OSV ranges", () => {
    expect(compareVersions("8.0.1", "8.0.2")).toBeLessThan(0);
    expect(compareVersions("7.10.0", "7.9.9")).toBeGreaterThan(0);
    expect(compareVersions("1.2.3-rc.1", "1.2.3")).toBeLessThan(0);
    const ranges = [{ introduced: "0.0.0", fixed: "7.6.6" }, { introduced: "8.0.0", fixed: "8.6.5" }];
    expect(["8.0.1", "7.5.8", "8.6.4"].map((v) => affected(v, ranges))).toEqual([true, true, true]);
    expect(["7.6.6", "8.6.5", "8.8.1"].map((v) => affected(v, ranges))).toEqual([false, false, false]);
  });

  it("names scoped packages by group/name and reports each matching advisory", () => {
    const components = componentsOf({ components: [{ group: "@opentelemetry", name: "sdk-node", version: "0.223.0" }, { name: "protobufjs", version: "8.0.1" }] });
    expect(components).toEqual([{ name: "@opentelemetry/sdk-node", version: "0.223.0" }, { name: "protobufjs", version: "8.0.1" }]);
    const found = findings(components, dataset) as { advisory: { id: string } }[];
    expect(found.map((f) => f.advisory.id)).toContain("GHSA-685m-2w69-288q");
  });

  it("fails (exit 1) on protobufjs 8.0.1, the version @opentelemetry/sdk-node 0.217.0 pins, naming the advisory", async () => {
    const run = await check(sbom([{ name: "protobufjs", version: "8.0.1" }, { group: "@opentelemetry", name: "otlp-transformer", version: "0.217.0" }]));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("protobufjs@8.0.1: GHSA-685m-2w69-288q (high)");
    expect(run.stdout).toContain(`dataset of ${dataset.retrieved}`);
  });

  it("passes (exit 0) on patched versions", async () => {
    const run = await check(sbom([{ name: "protobufjs", version: "7.6.6" }, { name: "protobufjs", version: "8.8.1" }]));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("0 with a known high-or-worse advisory");
  });

  it("the template pins telemetry packages whose tree carries no protobufjs 8.0.1 (sdk-node past 0.217.0)", () => {
    const template = JSON.parse(readFileSync(path.join(root, "templates/files/consumer/package.json"), "utf8")) as { dependencies: Record<string, string> };
    const sdkNode = template.dependencies["@opentelemetry/sdk-node"] as string;
    // 0.221.0 is the first sdk-node whose otlp-transformer no longer depends on protobufjs at all.
    expect(compareVersions(sdkNode, "0.221.0")).toBeGreaterThanOrEqual(0);
  });
});
