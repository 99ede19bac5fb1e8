// SARIF 2.1.0 for GitHub code scanning: `eslint -f ./node_modules/eslint-plugin-chargeguard/dist/formatters/sarif.js`.
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The parts of ESLint's `LintResult` the formatter reads (ESLint 9 and 10 agree on them). */
export interface LintMessage {
  ruleId: string | null;
  severity: 0 | 1 | 2;
  message: string;
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  fatal?: boolean;
}

export interface LintResult {
  filePath: string;
  messages: LintMessage[];
}

export interface RuleMeta {
  docs?: { description?: string; url?: string };
}

export interface FormatterContext {
  cwd?: string;
  rulesMeta?: Record<string, RuleMeta>;
  /** The tool named in the log (ESLint unless said otherwise: `chargeguard scan` names itself). */
  tool?: { name: string; informationUri: string };
}

/** A parse error has no rule: it is reported under this id so that every result names one. */
export const PARSE_ERROR_RULE = "eslint/parse-error";

interface SarifRule {
  id: string;
  shortDescription: { text: string };
  helpUri?: string;
}

export default function formatSarif(results: readonly LintResult[], context: FormatterContext = {}): string {
  const cwd = context.cwd ?? process.cwd();
  const rules: SarifRule[] = [];
  const ruleIndex = new Map<string, number>();

  const indexOf = (ruleId: string): number => {
    const known = ruleIndex.get(ruleId);
    if (known !== undefined) return known;
    const meta = context.rulesMeta?.[ruleId];
    const rule: SarifRule = {
      id: ruleId,
      shortDescription: { text: meta?.docs?.description ?? (ruleId === PARSE_ERROR_RULE ? "The file could not be parsed." : ruleId) },
    };
    if (meta?.docs?.url) rule.helpUri = meta.docs.url;
    ruleIndex.set(ruleId, rules.length);
    rules.push(rule);
    return rules.length - 1;
  };

  const sarifResults = results.flatMap((result) =>
    result.messages
      .filter((message) => message.severity > 0)
      .map((message) => {
        const ruleId = message.ruleId ?? PARSE_ERROR_RULE;
        return {
          ruleId,
          ruleIndex: indexOf(ruleId),
          level: message.severity === 2 ? "error" : "warning",
          message: { text: message.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: artifactLocation(result.filePath, cwd),
                region: region(message),
              },
            },
          ],
        };
      }),
  );

  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { ...(context.tool ?? { name: "ESLint", informationUri: "https://eslint.org" }), rules } },
        originalUriBaseIds: { "%SRCROOT%": { uri: pathToFileURL(cwd.endsWith(path.sep) ? cwd : cwd + path.sep).href } },
        results: sarifResults,
      },
    ],
  };
  return JSON.stringify(log, null, 2);
}

/** Files under the working directory are relative to `%SRCROOT%` (what code scanning maps to the repository). */
function artifactLocation(filePath: string, cwd: string): { uri: string; uriBaseId?: string } {
  const relative = path.relative(cwd, filePath);
  if (relative && !relative.startsWith("..") && !path.isAbsolute(relative)) {
    return { uri: relative.split(path.sep).map(encodeURIComponent).join("/"), uriBaseId: "%SRCROOT%" };
  }
  return { uri: pathToFileURL(filePath).href };
}

function region(message: LintMessage): Record<string, number> {
  const start = { startLine: Math.max(1, message.line ?? 1), startColumn: Math.max(1, message.column ?? 1) };
  if (message.endLine === undefined) return start;
  return { ...start, endLine: message.endLine, endColumn: Math.max(1, message.endColumn ?? start.startColumn) };
}
