import type { RuleMetadata } from "./project-facts.js";

/** One finding of `chargeguard scan`, with the ESLint plugin's rule id for the same shape. */
export interface Finding {
  /** `chargeguard/<rule>`, as ESLint reports it for TypeScript. */
  ruleId: string;
  /** Relative to the directory the scan ran in (absolute when outside it). */
  file: string;
  line: number;
  column: number;
  message: string;
  language: string;
}

/** What ast-grep prints per match with `--json=compact --include-metadata` (the fields read here). */
export interface AstGrepMatch {
  file: string;
  text: string;
  lines: string;
  metadata?: RuleMetadata | null;
  metaVariables?: { single?: Record<string, { text: string }> };
  ruleId: string;
  message: string;
  language: string;
  range: { start: { line: number; column: number } };
}
