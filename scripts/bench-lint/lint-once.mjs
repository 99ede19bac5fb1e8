// One measured lint of the corpus: the unit the benchmark's rounds repeat.
import { performance } from "node:perf_hooks";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import chargeguard from "eslint-plugin-chargeguard";

/**
 * Lints `directory` once in this process with typescript-eslint's recommended set (`typed`: its type-checked set),
 * with or without chargeguard's matching config, and measures it: CPU time (user + system) and wall time, in ms.
 */
export async function lint(directory, { typed, withPlugin, stats = false }) {
  const eslint = new ESLint({
    cwd: directory,
    overrideConfigFile: true,
    stats,
    overrideConfig: typed
      ? [
          {
            files: ["**/*.ts"],
            languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module", projectService: true, tsconfigRootDir: directory } },
          },
          ...tseslint.configs.recommendedTypeChecked,
          ...(withPlugin ? [chargeguard.configs["recommended-type-checked"]] : []),
        ]
      : [
          { files: ["**/*.ts"], languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module" } } },
          ...tseslint.configs.recommended,
          ...(withPlugin ? [chargeguard.configs.recommended] : []),
        ],
  });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const results = await eslint.lintFiles(["."]);
  const cpuUsed = process.cpuUsage(cpuBefore);
  const wall = performance.now() - started;
  const reports = results.reduce((sum, result) => sum + result.messages.filter((message) => message.ruleId?.startsWith("chargeguard/")).length, 0);
  return { wall, cpu: (cpuUsed.user + cpuUsed.system) / 1000, files: results.length, reports, results };
}
