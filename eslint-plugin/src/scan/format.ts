import path from "node:path";
import formatSarif, { type LintResult, type RuleMeta } from "../formatters/sarif.js";
import type { Finding } from "./finding.js";
import { ScanUsageError } from "./errors.js";

export const SCAN_FORMATS = ["text", "json", "sarif"] as const;
export type ScanFormat = (typeof SCAN_FORMATS)[number];

export function parseScanFormat(value: string): ScanFormat {
  if ((SCAN_FORMATS as readonly string[]).includes(value)) return value as ScanFormat;
  throw new ScanUsageError(`unknown format "${value}": use one of ${SCAN_FORMATS.join(", ")}`);
}

/**
 * text: one line per finding and a count; json: `[{ ruleId, file, line, message }]`; sarif: SARIF 2.1.0 with the
 * same rule descriptions and documentation links as the ESLint formatter (`rulesMeta` from the plugin).
 */
export function formatFindings(findings: readonly Finding[], format: ScanFormat, context: { cwd: string; rulesMeta: Record<string, RuleMeta> }): string {
  switch (format) {
    case "json":
      return JSON.stringify(findings.map(({ ruleId, file, line, message }) => ({ ruleId, file, line, message })), null, 2);
    case "sarif":
      return formatSarif(asLintResults(findings, context.cwd), {
        cwd: context.cwd,
        rulesMeta: context.rulesMeta,
        tool: { name: "chargeguard scan", informationUri: "https://ast-grep.github.io" },
      });
    case "text":
      if (findings.length === 0) return "chargeguard scan: no findings";
      return [
        ...findings.map((finding) => `${finding.file}:${finding.line}:${finding.column}  ${finding.message}  ${finding.ruleId}`),
        "",
        `${findings.length} finding${findings.length === 1 ? "" : "s"}`,
      ].join("\n");
  }
}

function asLintResults(findings: readonly Finding[], cwd: string): LintResult[] {
  const byFile = new Map<string, LintResult>();
  for (const finding of findings) {
    const filePath = path.resolve(cwd, finding.file);
    let result = byFile.get(filePath);
    if (!result) byFile.set(filePath, (result = { filePath, messages: [] }));
    result.messages.push({ ruleId: finding.ruleId, severity: 2, message: finding.message, line: finding.line, column: finding.column });
  }
  return [...byFile.values()];
}
