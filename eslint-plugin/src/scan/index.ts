// `chargeguard scan`: the plugin's rules for Python and Java, run by ast-grep (eslint-plugin/ast-grep/).
import plugin from "../index.js";
import type { RuleMeta } from "../formatters/sarif.js";

export { ScanError, ScanToolError, ScanUsageError } from "./errors.js";
export type { Finding } from "./finding.js";
export { formatFindings, parseScanFormat, SCAN_FORMATS, type ScanFormat } from "./format.js";
export { runScan, SCAN_CONFIG, type ScanOptions } from "./run-scan.js";

/** The ESLint rules' descriptions and docs links, by `chargeguard/<rule>` (the scan's findings use the same ids). */
export const scanRulesMeta: Record<string, RuleMeta> = Object.fromEntries(
  Object.entries(plugin.rules).map(([name, rule]) => [`chargeguard/${name}`, { docs: { description: rule.meta.docs?.description, url: rule.meta.docs?.url } }]),
);
