// The offline advisory check (scripts/advisory-check.mjs): a CycloneDX SBOM matched against the committed dataset.
// A production tree with the template's former telemetry (protobufjs 8.0.1 through @opentelemetry/sdk-node 0.217.0)
// fails; the template's telemetry packages now carry no protobufjs at all.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { affected, compareVersions, componentsOf, findings } from "../../scripts/advisory-check.mjs";
import { otlpPackages } from "../../templates/telemetry-choice.js";

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

/** Runs the check on one SBOM; on the committed dataset's own day unless `today` says (its age is tested apart). */
function check(file: string, extra: string[] = [], today = dataset.retrieved): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, "--sbom", file, "--today", today, ...extra], (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
  });
}

/** A dataset file of one advisory, dated `retrieved`. */
function datasetFile(retrieved: string, advisory: Record<string, unknown>): string {
  const file = path.join(scratch, `dataset-${retrieved}-${String(advisory["severity"])}-${String(advisory["id"])}.json`);
  writeFileSync(file, JSON.stringify({ retrieved, sources: ["test"], advisories: [advisory] }));
  return file;
}

const betaExporter = { id: "GHSA-test-beta", package: "@azure/monitor-opentelemetry-exporter", severity: "high", summary: "fixed in beta.48", ranges: [{ introduced: "1.0.0-beta.1", fixed: "1.0.0-beta.48" }] };

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
    expect(run.stdout).toContain(`the dataset (${dataset.retrieved}) covers 1 of them and cannot speak for the other 1`);
  });

  it("passes (exit 0) on patched versions", async () => {
    const run = await check(sbom([{ name: "protobufjs", version: "7.6.6" }, { name: "protobufjs", version: "8.8.1" }]));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("0 with a known high-or-worse advisory");
  });

  it("the template's telemetry packages (Azure Monitor's and --telemetry otlp's), as the root lockfile resolves them, carry no protobufjs at all", () => {
    const manifest = JSON.parse(readFileSync(path.join(root, "templates/files/consumer/package.json"), "utf8")) as { dependencies: Record<string, string> };
    const template = { dependencies: { ...manifest.dependencies, ...otlpPackages } };
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string; dependencies?: Record<string, string> }> };
    /** Node's resolution over the lockfile's paths: the nearest node_modules/<name> from `from` upwards. */
    const resolve = (from: string, name: string): string | undefined => {
      for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf("/node_modules/")))) {
        const key = `${at === "" ? "" : `${at}/`}node_modules/${name}`;
        if (lock.packages[key]) return key;
        if (at === "") return undefined;
      }
    };
    const telemetry = Object.keys(template.dependencies).filter((name) => name.startsWith("@opentelemetry/") || name.startsWith("@azure/monitor-"));
    expect(telemetry).toEqual(expect.arrayContaining(["@azure/monitor-opentelemetry-exporter", "@opentelemetry/exporter-trace-otlp-proto", "@opentelemetry/exporter-metrics-otlp-proto"]));
    const seen = new Set<string>();
    const queue = telemetry.map((name) => resolve("", name) as string);
    for (const [name, version] of telemetry.map((dependency) => [dependency, template.dependencies[dependency]])) {
      expect(lock.packages[`node_modules/${name}`]?.version, `${name}: pinned at the root lockfile's version`).toBe(version);
    }
    while (queue.length > 0) {
      const key = queue.pop() as string;
      if (seen.has(key)) continue;
      seen.add(key);
      for (const dependency of Object.keys(lock.packages[key]?.dependencies ?? {})) {
        const found = resolve(key, dependency);
        if (found) queue.push(found);
      }
    }
    expect([...seen].filter((key) => key.endsWith("/protobufjs") || key.includes("/@grpc/"))).toEqual([]);
    expect(seen.size).toBeGreaterThan(telemetry.length);
  });

  describe("fails closed (#44)", () => {
    it("finds a prerelease inside a range bounded by prereleases, by semver's order", async () => {
      expect(affected("1.0.0-beta.47", betaExporter.ranges)).toBe(true);
      expect(affected("1.0.0-beta.48", betaExporter.ranges)).toBe(false);
      expect(affected("1.0.0-beta.100", [{ introduced: "1.0.0-beta.1", fixed: "1.0.0-beta.48" }])).toBe(false);
      expect(affected("1.0.0", betaExporter.ranges)).toBe(false);
      expect(affected("2.0.0", [{ introduced: "1.0.0", last_affected: "2.0.0" }])).toBe(true);
      const run = await check(sbom([{ group: "@azure", name: "monitor-opentelemetry-exporter", version: "1.0.0-beta.47" }]), ["--dataset", datasetFile("2026-12-01", betaExporter)], "2026-12-07");
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toContain("@azure/monitor-opentelemetry-exporter@1.0.0-beta.47: GHSA-test-beta (high)");
    });

    it("reads a severity in any case (OSV exports write HIGH) and refuses one it cannot read", async () => {
      const file = sbom([{ group: "@azure", name: "monitor-opentelemetry-exporter", version: "1.0.0-beta.47" }]);
      const upper = await check(file, ["--dataset", datasetFile("2026-12-01", { ...betaExporter, severity: "HIGH" })], "2026-12-07");
      expect(upper.code, upper.stdout + upper.stderr).toBe(1);
      expect(upper.stdout).toContain("GHSA-test-beta (high)");
      const critical = await check(file, ["--dataset", datasetFile("2026-12-01", { ...betaExporter, severity: "Critical" }), "--severity", "critical"], "2026-12-07");
      expect(critical.code).toBe(1);
      const unknown = await check(file, ["--dataset", datasetFile("2026-12-01", { ...betaExporter, severity: "severe" })], "2026-12-07");
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('advisory check: advisory GHSA-test-beta: unknown severity "severe"');
    });

    it("reads an advisory in OSV's own schema, as OSV and GitHub export it (severity HIGH in database_specific)", async () => {
      const osv = {
        id: "GHSA-test-osv",
        summary: "fixed in beta.48",
        affected: [{ package: { ecosystem: "npm", name: "@azure/monitor-opentelemetry-exporter" }, ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "1.0.0-beta.48" }] }] }],
        database_specific: { severity: "HIGH" },
      };
      const run = await check(sbom([{ group: "@azure", name: "monitor-opentelemetry-exporter", version: "1.0.0-beta.47" }]), ["--dataset", datasetFile("2026-12-01", osv)], "2026-12-07");
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toContain("@azure/monitor-opentelemetry-exporter@1.0.0-beta.47: GHSA-test-osv (high)");
    });

    it("refuses a stale or undated dataset (exit 2), naming its age", async () => {
      const file = sbom([{ name: "left-pad", version: "1.3.0" }]);
      const stale = await check(file, ["--dataset", datasetFile("2019-06-01", betaExporter)], "2026-12-07");
      expect(stale.code).toBe(2);
      expect(stale.stderr).toMatch(/advisory check: the dataset is \d+ days old \(retrieved 2019-06-01; at most 30 accepted\): refresh it/);
      expect(stale.stdout).toBe("");
      const month = await check(file, ["--dataset", datasetFile("2026-11-01", betaExporter)], "2026-12-07");
      expect(month.code).toBe(2);
      expect((await check(file, ["--dataset", datasetFile("2026-11-01", betaExporter), "--max-age-days", "40"], "2026-12-07")).code).toBe(0);
      const undated = await check(file, ["--dataset", datasetFile("recently", betaExporter)], "2026-12-07");
      expect(undated.code).toBe(2);
      expect(undated.stderr).toContain('the dataset\'s "retrieved" date is missing or not YYYY-MM-DD');
    });

    it("refuses an SBOM with no packages (exit 2): nothing looked at is not a pass", async () => {
      const run = await check(sbom([]));
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("the SBOM lists no packages");
    });

    it("says how many packages the dataset covers and how many it cannot speak for", async () => {
      const run = await check(sbom([{ name: "protobufjs", version: "8.8.1" }, { name: "pg", version: "8.16.3" }, { name: "zod", version: "4.1.0" }]));
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("3 packages, 0 with a known high-or-worse advisory; the dataset (" + dataset.retrieved + ") covers 1 of them and cannot speak for the other 2");
    });
  });
});
