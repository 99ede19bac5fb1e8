#!/usr/bin/env node
// Recall and precision of chargeguard's rules on real public billing code (eslint-plugin/corpus/): each stored file's
// hand labels (labels.json: rule, line, shape, reason) against what the rules report, in both ESLint configs
// (recommended: names only; recommended-type-checked: a TypeScript program over the corpus with this checkout's
// stripe and @azure/service-bus types) and for `chargeguard scan` on the Python, Java and YAML files (one scan per
// source repository, which is how the scan sees a project). Reported per split (dev: used while fixing the rules;
// held-out: never tuned on), per rule and per shape. A finding that matches no label is a false alarm; one in a file
// labelled safe breaks the precision target (1.00).
// Usage: npm run bench:lint-recall   (builds the plugin first)   [--json] prints the raw comparison as JSON.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import chargeguard from "eslint-plugin-chargeguard";
import { runScan } from "eslint-plugin-chargeguard/scan";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const corpus = path.join(root, "eslint-plugin", "corpus");
// Splits: dev (used while fixing the rules), held-out (never tuned on until its first run), held-out-2 (labelled
// blind by another engineer, with labels of its own in held-out-2/labels.json, file paths relative to corpus/),
// service-bus (real Service Bus consumers, billing or not: the Service Bus rules' precision on real code), repos (whole
// repositories, every file linted and scanned: the key or the call in another file, and the noise of a whole tree).
const SPLITS = ["dev", "held-out", "held-out-2", "service-bus", "repos"].filter((split) => existsSync(path.join(corpus, split)));
const SERVICE_BUS_RULES = ["no-abandon-on-stripe-error", "record-before-settle", "lock-renewal-covers-stripe", "no-receive-and-delete"];
const readLabels = (file) => JSON.parse(readFileSync(file, "utf8")).files;
const labelled = [
  ...readLabels(path.join(corpus, "labels.json")),
  ...SPLITS.filter((split) => existsSync(path.join(corpus, split, "labels.json"))).flatMap((split) => readLabels(path.join(corpus, split, "labels.json"))),
];

// Lint a copy under .tmp/: the typed config needs a tsconfig and node_modules beside the files, which the corpus
// itself must not carry.
const work = path.join(root, ".tmp", "lint-recall");
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
for (const split of SPLITS) cpSync(path.join(corpus, split), path.join(work, split), { recursive: true, filter: (source) => !source.endsWith(`${path.sep}labels.json`) && !source.endsWith(`${path.sep}README.md`) });
writeFileSync(
  path.join(work, "tsconfig.json"),
  JSON.stringify({ compilerOptions: { allowJs: true, checkJs: false, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: false, skipLibCheck: true, noEmit: true, types: ["node"] }, include: ["**/*"] }),
);
if (!existsSync(path.join(work, "node_modules"))) symlinkSync(path.join(root, "node_modules"), path.join(work, "node_modules"));

const jsFiles = ["**/*.ts", "**/*.tsx", "**/*.js", "**/*.mjs", "**/*.cjs"];
const base = [{ ignores: ["node_modules/**"] }, { files: jsFiles, languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module" } } }];
const configs = {
  recommended: [...base, { files: jsFiles, ...chargeguard.configs.recommended }],
  "recommended-type-checked": [
    ...base,
    { files: jsFiles, languageOptions: { parserOptions: { project: "./tsconfig.json", tsconfigRootDir: work } } },
    { files: jsFiles, ...chargeguard.configs["recommended-type-checked"] },
  ],
};

/** Findings as { file, rule, line }, the file relative to the corpus, the rule without its `chargeguard/` prefix. */
async function eslintFindings(overrideConfig) {
  const eslint = new ESLint({ cwd: work, overrideConfigFile: true, overrideConfig, errorOnUnmatchedPattern: false });
  const findings = [];
  const parseErrors = [];
  for (const result of await eslint.lintFiles(SPLITS)) {
    const file = path.relative(work, result.filePath).split(path.sep).join("/");
    for (const message of result.messages) {
      if (message.ruleId === null) parseErrors.push(`${file}: ${message.message}`);
      else if (message.ruleId.startsWith("chargeguard/")) findings.push({ file, rule: message.ruleId.slice(12), line: message.line });
    }
  }
  return { findings, parseErrors };
}

async function scanFindings() {
  const findings = [];
  for (const split of SPLITS) {
    for (const project of readdirSync(path.join(work, split))) {
      for (const finding of await runScan([`${split}/${project}`], { cwd: work })) {
        findings.push({ file: finding.file, rule: finding.ruleId.slice(12), line: finding.line });
      }
    }
  }
  return findings;
}

const isScanned = (file) => /\.(py|java|ya?ml)$/.test(file);
const languageOf = (file) => (/\.py$/.test(file) ? "python" : /\.java$/.test(file) ? "java" : /\.ya?ml$/.test(file) ? "yaml" : "ts/js");

/** Labels against findings: true positives per label, false alarms per finding. */
function compare(findings, inScope) {
  const rows = [];
  const matched = new Set();
  for (const entry of labelled.filter((item) => inScope(item.file))) {
    const split = entry.file.split("/")[0];
    for (const risk of entry.risks) {
      const hit = findings.findIndex((finding, index) => !matched.has(index) && finding.file === entry.file && finding.rule === risk.rule && finding.line === risk.line);
      if (hit >= 0) matched.add(hit);
      rows.push({ kind: hit >= 0 ? "tp" : "fn", split, language: languageOf(entry.file), rule: risk.rule, shape: risk.shape, file: entry.file, line: risk.line });
    }
  }
  const safeFiles = new Set(labelled.filter((item) => item.risks.length === 0).map((item) => item.file));
  findings.forEach((finding, index) => {
    if (matched.has(index) || !inScope(finding.file)) return;
    const entry = labelled.find((item) => item.file === finding.file);
    rows.push({ kind: "fp", split: finding.file.split("/")[0], language: languageOf(finding.file), rule: finding.rule, shape: entry ? "(unlabelled)" : "(unknown file)", file: finding.file, line: finding.line, inSafeFile: safeFiles.has(finding.file) });
  });
  return rows;
}

function table(rows, key) {
  const groups = new Map();
  for (const row of rows) {
    const name = row[key];
    const group = groups.get(name) ?? { tp: 0, fn: 0, fp: 0 };
    group[row.kind] += 1;
    groups.set(name, group);
  }
  const ratio = (a, b) => (b === 0 ? "-" : (a / b).toFixed(2));
  const lines = [`| ${key} | risks | found | recall | false alarms | precision |`, "|---|---:|---:|---:|---:|---:|"];
  for (const [name, { tp, fn, fp }] of [...groups].sort(([a], [b]) => String(a).localeCompare(String(b)))) {
    lines.push(`| ${name} | ${tp + fn} | ${tp} | ${ratio(tp, tp + fn)} | ${fp} | ${ratio(tp, tp + fp)} |`);
  }
  return lines.join("\n");
}

const report = {};
for (const [name, overrideConfig] of Object.entries(configs)) {
  const { findings, parseErrors } = await eslintFindings(overrideConfig);
  report[name] = { rows: compare(findings, (file) => !isScanned(file)), parseErrors };
}
report.scan = { rows: compare(await scanFindings(), isScanned), parseErrors: [] };

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const total = labelled.length;
  const safe = labelled.filter((item) => item.risks.length === 0).length;
  console.log(`corpus: ${total} files (${safe} labelled safe), ${labelled.reduce((sum, item) => sum + item.risks.length, 0)} labelled risks`);
  for (const [name, { rows, parseErrors }] of Object.entries(report)) {
    const title = name === "scan" ? "chargeguard scan (Python, Java, YAML)" : `ESLint ${name} (TypeScript, JavaScript)`;
    for (const split of SPLITS) {
      const inSplit = rows.filter((row) => row.split === split);
      // A split with nothing to count here (no risk labelled, no finding: the service-bus split, or no file of the language)
      if (inSplit.length === 0) continue;
      const byLanguage = name === "scan" ? `\n\n${table(inSplit, "language")}` : "";
      console.log(`\n### ${title}: ${split}\n\n${table(inSplit.map((row) => ({ ...row, all: "all" })), "all")}${byLanguage}\n\n${table(inSplit, "rule")}\n\n${table(inSplit, "shape")}`);
    }
    const serviceBus = rows.filter((row) => row.split === "service-bus");
    if (SPLITS.includes("service-bus") && name !== "scan") {
      const files = labelled.filter((item) => item.file.startsWith("service-bus/")).length;
      const lines = SERVICE_BUS_RULES.map((rule) => {
        const found = serviceBus.filter((row) => row.rule === rule);
        const tp = found.filter((row) => row.kind === "tp").length;
        const fp = found.filter((row) => row.kind === "fp").length;
        return `| ${rule} | ${files} | ${found.filter((row) => row.kind !== "fp").length} | ${tp + fp} | ${fp} | ${tp + fp === 0 ? "- (silent)" : (tp / (tp + fp)).toFixed(2)} |`;
      });
      console.log(`\n### ${title}: the Service Bus rules on real consumers (service-bus)\n\n| rule | files | labelled risks | findings | false alarms | precision |\n|---|---:|---:|---:|---:|---:|\n${lines.join("\n")}`);
    }
    const misses = rows.filter((row) => row.kind !== "tp");
    if (misses.length > 0) console.log(`\n${name} misses and false alarms:\n${misses.map((row) => `  ${row.kind} ${row.rule} ${row.file}:${row.line} (${row.shape})${row.inSafeFile ? " IN A SAFE FILE" : ""}`).join("\n")}`);
    if (parseErrors.length > 0) console.log(`\n${name} files that did not parse:\n  ${parseErrors.join("\n  ")}`);
  }
}
