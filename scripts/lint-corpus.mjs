#!/usr/bin/env node
// Lints a directory of collected public code with chargeguard's two configs (recommended: names only;
// recommended-type-checked: a program over the directory, with this repository's stripe and @azure/service-bus types)
// and runs `chargeguard scan` over its Python and Java, printing every finding as JSON lines
// ({ config, ruleId, file, line, message }) for review, then counts per rule. BENCHMARKS.md records the review.
// Usage: node scripts/lint-corpus.mjs <directory>   (after `npm run build`)
import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import chargeguard from "eslint-plugin-chargeguard";
import { runScan } from "eslint-plugin-chargeguard/scan";

const directory = path.resolve(process.argv[2] ?? "");
if (!process.argv[2] || !existsSync(directory)) {
  console.error("usage: node scripts/lint-corpus.mjs <directory>");
  process.exit(2);
}
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// The typed config needs a program: a tsconfig over everything, and the SDKs' types from this checkout.
writeFileSync(
  path.join(directory, "tsconfig.json"),
  JSON.stringify({ compilerOptions: { allowJs: true, checkJs: false, jsx: "preserve", module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: true, skipLibCheck: true, noEmit: true, types: ["node"] }, include: ["**/*"] }),
);
if (!existsSync(path.join(directory, "node_modules"))) symlinkSync(path.join(root, "node_modules"), path.join(directory, "node_modules"));

const files = ["**/*.ts", "**/*.tsx", "**/*.js", "**/*.mjs", "**/*.cjs"];
const base = [
  { ignores: ["node_modules/**"] },
  { files, languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module", ecmaFeatures: { jsx: true } } } },
];
const configs = {
  recommended: [...base, { files, ...chargeguard.configs.recommended }],
  "recommended-type-checked": [
    ...base,
    { files, languageOptions: { parserOptions: { project: "./tsconfig.json", tsconfigRootDir: directory } } },
    { files, ...chargeguard.configs["recommended-type-checked"] },
  ],
};
const counts = {};
for (const [name, overrideConfig] of Object.entries(configs)) {
  const eslint = new ESLint({ cwd: directory, overrideConfigFile: true, overrideConfig, errorOnUnmatchedPattern: false });
  const results = await eslint.lintFiles(["."]);
  for (const result of results) {
    for (const message of result.messages) {
      const ruleId = message.ruleId ?? "fatal";
      console.log(JSON.stringify({ config: name, ruleId, file: path.relative(directory, result.filePath), line: message.line, message: message.message.slice(0, 140) }));
      counts[`${name} ${ruleId}`] = (counts[`${name} ${ruleId}`] ?? 0) + 1;
    }
  }
  counts[`${name} files`] = results.length;
}
for (const finding of await runScan(["."], { cwd: directory })) {
  console.log(JSON.stringify({ config: "scan", ruleId: finding.ruleId, file: finding.file, line: finding.line, message: finding.message.slice(0, 140) }));
  counts[`scan ${finding.ruleId}`] = (counts[`scan ${finding.ruleId}`] ?? 0) + 1;
}
console.error(JSON.stringify(counts, null, 2));
