#!/usr/bin/env node
// npm run audit:advisories: fails (exit 1) when a package in a production tree has a known high or critical advisory.
// The registry's audit endpoint is not reachable everywhere (it answers 405 on some mirrors), so the check is offline:
// a CycloneDX SBOM of each production tree (`npm sbom --sbom-format cyclonedx --omit dev --package-lock-only`) is
// matched against a curated advisory dataset committed beside this script (scripts/advisories/known-advisories.json,
// OSV-style ranges; its header names its sources and date). No npm package ships the GitHub advisory database or OSV
// data offline today (the OSV offline packages download it at run time), so the dataset is ours to refresh (SECURITY.md).
// Trees checked: the repository's own (what `npm install chargeguard` brings) and the generated consumer's (the
// template's production dependencies, resolved into a scratch lockfile; chargeguard itself is the first tree).
// Options: --sbom FILE (check one SBOM instead), --dataset FILE, --severity high|critical (the least that fails).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repository = fileURLToPath(new URL("..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const levels = ["low", "moderate", "high", "critical"];

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

/** 1.2.3 -> [1, 2, 3]; a prerelease sorts before its release (1.2.3-rc.1 < 1.2.3). */
function parse(version) {
  const [core, pre] = version.split("-", 2);
  return { parts: core.split(".").map((part) => Number(part) || 0), pre: pre !== undefined };
}

export function compareVersions(a, b) {
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if ((x.parts[i] ?? 0) !== (y.parts[i] ?? 0)) return (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
  return x.pre === y.pre ? 0 : x.pre ? -1 : 1;
}

/** OSV semantics: each range is { introduced, fixed? }; the version is affected when introduced <= v < fixed. */
export function affected(version, ranges) {
  return ranges.some((range) => compareVersions(version, range.introduced) >= 0 && (range.fixed === undefined || compareVersions(version, range.fixed) < 0));
}

/** name@version of every component of a CycloneDX SBOM (scoped packages carry their scope as `group`). */
export function componentsOf(sbom) {
  return (sbom.components ?? []).map((component) => ({
    name: component.group ? `${component.group}/${component.name}` : component.name,
    version: component.version,
  }));
}

export function findings(components, dataset, least = "high") {
  const floor = levels.indexOf(least);
  const found = [];
  for (const advisory of dataset.advisories) {
    if (levels.indexOf(advisory.severity) < floor) continue;
    for (const component of components) {
      if (component.name === advisory.package && affected(component.version, advisory.ranges)) found.push({ ...component, advisory });
    }
  }
  return found;
}

function sbomOf(directory) {
  const text = execFileSync(npm, ["sbom", "--sbom-format", "cyclonedx", "--omit", "dev", "--package-lock-only"], { cwd: directory, encoding: "utf8", maxBuffer: 64 << 20 });
  return JSON.parse(text);
}

/** The generated consumer's production dependencies but chargeguard (checked as the repository's tree), resolved. */
function consumerSbom() {
  const template = JSON.parse(readFileSync(path.join(repository, "templates/files/consumer/package.json"), "utf8"));
  const dependencies = Object.fromEntries(Object.entries(template.dependencies).filter(([name]) => name !== "chargeguard"));
  const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-advisories-"));
  try {
    writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ name: "generated-consumer", version: "0.0.0", private: true, dependencies }));
    execFileSync(npm, ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: scratch, stdio: ["ignore", "ignore", "inherit"] });
    return sbomOf(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function main() {
  const dataset = JSON.parse(readFileSync(option("--dataset", path.join(repository, "scripts/advisories/known-advisories.json")), "utf8"));
  const least = option("--severity", "high");
  const single = option("--sbom", undefined);
  const trees = single ? [["--sbom " + single, () => JSON.parse(readFileSync(single, "utf8"))]] : [["chargeguard (production)", () => sbomOf(repository)], ["generated consumer (production)", consumerSbom]];
  let failed = false;
  for (const [name, load] of trees) {
    const components = componentsOf(load());
    const found = findings(components, dataset, least);
    console.log(`${name}: ${components.length} packages, ${found.length} with a known ${least}-or-worse advisory (dataset of ${dataset.retrieved})`);
    for (const { name: pkg, version, advisory } of found) console.log(`  ${pkg}@${version}: ${advisory.id} (${advisory.severity}) ${advisory.summary}`);
    if (found.length > 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
