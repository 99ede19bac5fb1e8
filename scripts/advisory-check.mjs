#!/usr/bin/env node
// npm run audit:advisories: fails (exit 1) when a package in a production tree has a known high or critical advisory,
// and refuses to answer (exit 2) when it cannot: a dataset older than --max-age-days (default 30) or undated, an
// advisory whose severity or range it cannot read, an SBOM with no packages. It fails closed: a check that cannot
// see is not a pass.
// The registry's bulk audit endpoint answers 405 from this project's machines (`npm audit` too; SECURITY.md), so the
// check is offline: a CycloneDX SBOM of each production tree (`npm sbom --sbom-format cyclonedx --omit dev
// --package-lock-only`) is matched against a curated dataset committed beside this script
// (scripts/advisories/known-advisories.json, OSV's range format, or OSV records as exported; its header names its
// sources and date). Versions
// are compared by the `semver` package (prereleases included: 1.0.0-beta.47 is inside a range fixed in -beta.48).
// The report says how many packages the dataset speaks for: a package it has no entry for is not known safe.
// Trees checked: the repository's own (what `npm install chargeguard` brings) and the generated consumer's (the
// template's production dependencies, resolved into a scratch lockfile; chargeguard itself is the first tree).
// Options: --sbom FILE (check one SBOM instead), --dataset FILE, --severity high|critical (the least that fails),
// --max-age-days N (the oldest dataset accepted), --today YYYY-MM-DD (for tests).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";

const repository = fileURLToPath(new URL("..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const levels = ["low", "moderate", "high", "critical"];
/** Severity words in the datasets' spellings (OSV exports use upper case, GitHub's "medium" is npm's "moderate"). */
const severityWords = { low: "low", moderate: "moderate", medium: "moderate", high: "high", critical: "critical" };
const dayMs = 86_400_000;

/** The check cannot answer: exit 2, one line naming the problem. */
export class AdvisoryCheckError extends Error {}

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

/** semver's order, prereleases included (1.2.3-rc.1 < 1.2.3); a version semver cannot read is an error. */
export function compareVersions(a, b) {
  return semver.compare(strictVersion(a), strictVersion(b));
}

function strictVersion(version) {
  const parsed = semver.parse(version);
  if (!parsed) throw new AdvisoryCheckError(`"${version}" is not a semantic version`);
  return parsed;
}

/** OSV semantics: each range is { introduced, fixed? | last_affected? }; affected when introduced <= v < fixed. */
export function affected(version, ranges) {
  return ranges.some((range) => {
    if (compareVersions(version, range.introduced) < 0) return false;
    if (range.fixed !== undefined) return compareVersions(version, range.fixed) < 0;
    if (range.last_affected !== undefined) return compareVersions(version, range.last_affected) <= 0;
    return true;
  });
}

/** An advisory's severity as one of `levels`, in any case; an unknown word is an error, never "not high". */
export function severityOf(advisory) {
  const level = severityWords[String(advisory.severity).toLowerCase()];
  if (level === undefined) throw new AdvisoryCheckError(`advisory ${advisory.id}: unknown severity "${advisory.severity}"`);
  return level;
}

/** name@version of every component of a CycloneDX SBOM (scoped packages carry their scope as `group`). */
export function componentsOf(sbom) {
  return (sbom.components ?? []).map((component) => ({
    name: component.group ? `${component.group}/${component.name}` : component.name,
    version: component.version,
  }));
}

/**
 * The dataset with every advisory in our flat shape ({ id, package, severity, summary, ranges }); an entry in OSV's
 * own schema (`affected[].package`, `ranges[].events`, `database_specific.severity`, as OSV and GitHub export them)
 * becomes one flat advisory per affected npm package, so an export can be added as it is.
 */
export function normalizeDataset(dataset) {
  const advisories = (dataset.advisories ?? []).flatMap((entry) => (Array.isArray(entry.affected) ? fromOsv(entry) : [entry]));
  return { ...dataset, advisories };
}

function fromOsv(entry) {
  const severity = entry.database_specific?.severity ?? entry.severity;
  return entry.affected
    .filter((affected) => String(affected.package?.ecosystem).toLowerCase() === "npm")
    .map((affected) => ({
      id: entry.id,
      package: affected.package.name,
      severity: typeof severity === "string" ? severity : JSON.stringify(severity),
      summary: entry.summary ?? entry.details ?? "",
      ranges: [...(affected.ranges ?? []).flatMap((range) => rangesOf(range.events ?? [])), ...(affected.versions ?? []).map((version) => ({ introduced: version, last_affected: version }))],
    }));
}

/** OSV events, in order: each "introduced" opens a range that the next "fixed" or "last_affected" closes. */
function rangesOf(events) {
  const ranges = [];
  for (const event of events) {
    if (event.introduced !== undefined) ranges.push({ introduced: event.introduced === "0" ? "0.0.0" : event.introduced });
    const open = ranges.at(-1);
    if (open && event.fixed !== undefined) open.fixed = event.fixed;
    if (open && event.last_affected !== undefined) open.last_affected = event.last_affected;
  }
  return ranges;
}

/** Refuses a dataset that is undated, dated ahead, or older than `maxAgeDays` on `today`, and reads every severity. */
export function checkDataset(dataset, { today = new Date(), maxAgeDays = 30 } = {}) {
  const retrieved = Date.parse(`${dataset.retrieved}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(String(dataset.retrieved)) || Number.isNaN(retrieved)) {
    throw new AdvisoryCheckError(`the dataset's "retrieved" date is missing or not YYYY-MM-DD: ${JSON.stringify(dataset.retrieved)}`);
  }
  const ageDays = Math.floor((today.getTime() - retrieved) / dayMs);
  if (ageDays < -1) throw new AdvisoryCheckError(`the dataset is dated ${dataset.retrieved}, after today: fix its date`);
  if (ageDays > maxAgeDays) {
    throw new AdvisoryCheckError(`the dataset is ${ageDays} days old (retrieved ${dataset.retrieved}; at most ${maxAgeDays} accepted): refresh it (SECURITY.md, "Dependency advisories")`);
  }
  for (const advisory of dataset.advisories ?? []) {
    severityOf(advisory);
    if (!Array.isArray(advisory.ranges) || advisory.ranges.length === 0) throw new AdvisoryCheckError(`advisory ${advisory.id}: no ranges`);
    for (const range of advisory.ranges) strictVersion(range.introduced);
  }
}

export function findings(components, dataset, least = "high") {
  const floor = levels.indexOf(least);
  const found = [];
  for (const advisory of dataset.advisories) {
    if (levels.indexOf(severityOf(advisory)) < floor) continue;
    for (const component of components) {
      if (component.name === advisory.package && affected(component.version, advisory.ranges)) found.push({ ...component, advisory });
    }
  }
  return found;
}

/** How many of the tree's packages the dataset has entries for (it speaks for those only). */
export function coverage(components, dataset) {
  const listed = new Set(dataset.advisories.map((advisory) => advisory.package));
  const names = new Set(components.map((component) => component.name));
  const covered = [...names].filter((name) => listed.has(name)).length;
  return { packages: names.size, covered, unknown: names.size - covered, datasetPackages: listed.size };
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

/** One tree: its report lines, and whether it has a finding. An empty tree is refused: nothing was looked at. */
export function checkTree(name, sbom, dataset, least = "high") {
  const components = componentsOf(sbom);
  if (components.length === 0) throw new AdvisoryCheckError(`${name}: the SBOM lists no packages: nothing to check is not a pass`);
  const found = findings(components, dataset, least);
  const reach = coverage(components, dataset);
  const lines = [
    `${name}: ${reach.packages} packages, ${found.length} with a known ${least}-or-worse advisory; the dataset (${dataset.retrieved}) covers ` +
      `${reach.covered} of them and cannot speak for the other ${reach.unknown}`,
    ...found.map(({ name: pkg, version, advisory }) => `  ${pkg}@${version}: ${advisory.id} (${severityOf(advisory)}) ${advisory.summary}`),
  ];
  return { lines, failed: found.length > 0 };
}

function main() {
  const dataset = normalizeDataset(JSON.parse(readFileSync(option("--dataset", path.join(repository, "scripts/advisories/known-advisories.json")), "utf8")));
  const least = option("--severity", "high");
  if (!["high", "critical"].includes(least)) throw new AdvisoryCheckError(`--severity must be high or critical, got "${least}"`);
  const maxAgeDays = Number(option("--max-age-days", "30"));
  const today = option("--today", undefined);
  checkDataset(dataset, { maxAgeDays, ...(today ? { today: new Date(`${today}T00:00:00Z`) } : {}) });
  const single = option("--sbom", undefined);
  const trees = single ? [["--sbom " + single, () => JSON.parse(readFileSync(single, "utf8"))]] : [["chargeguard (production)", () => sbomOf(repository)], ["generated consumer (production)", consumerSbom]];
  let failed = false;
  for (const [name, load] of trees) {
    const result = checkTree(name, load(), dataset, least);
    for (const line of result.lines) console.log(line);
    failed ||= result.failed;
  }
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    if (!(error instanceof AdvisoryCheckError)) throw error;
    console.error(`advisory check: ${error.message}`);
    process.exitCode = 2;
  }
}
