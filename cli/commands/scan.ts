import type { Command } from "commander";
import { terminalSafe } from "../../runtime/index.js";
import { exitCodesHelp } from "../exit-codes.js";

interface ScanFlags {
  format: string;
}

/** What `eslint-plugin-chargeguard/scan` exports (declared here so the CLI type-checks before the plugin is built). */
interface ScanModule {
  runScan(paths: readonly string[], options?: { cwd?: string }): Promise<{ ruleId: string }[]>;
  parseScanFormat(value: string): string;
  formatFindings(findings: readonly { ruleId: string }[], format: string, context: { cwd: string; rulesMeta: object }): string;
  scanRulesMeta: object;
  ScanUsageError: new (...args: never[]) => Error;
  ScanToolError: new (...args: never[]) => Error;
}

const SCAN_MODULE = "eslint-plugin-chargeguard/scan";

// `chargeguard scan`: thin; the rules and the runner live with the ESLint plugin (eslint-plugin/ast-grep, src/scan).
export function register(program: Command): void {
  program
    .command("scan")
    .description(
      "scan Python (azure-servicebus + stripe) and Java (azure-messaging-servicebus / Spring + stripe-java) code with " +
        "the ESLint plugin's rules, run by ast-grep; findings carry the same rule ids (chargeguard/<rule>)",
    )
    .argument("[paths...]", "files or directories to scan (default: the current directory)")
    .option("-f, --format <format>", "text, json ([{ ruleId, file, line, message }]) or sarif (SARIF 2.1.0)", "text")
    .addHelpText("after", exitCodesHelp({ 0: "clean", 1: "findings", 2: "a scan that cannot run: ast-grep or the plugin missing" }))
    .action(async (paths: string[], flags: ScanFlags) => {
      let scan: ScanModule;
      try {
        scan = (await import(SCAN_MODULE)) as ScanModule;
      } catch (error) {
        console.error(`chargeguard scan: cannot load ${SCAN_MODULE} (install eslint-plugin-chargeguard): ${(error as Error).message}`);
        process.exitCode = 2;
        return;
      }
      try {
        const format = scan.parseScanFormat(flags.format);
        const cwd = process.cwd();
        const findings = await scan.runScan(paths, { cwd });
        // File names are the scanned tree's bytes: control characters escaped (JSON and SARIF stay valid JSON).
        console.log(terminalSafe(scan.formatFindings(findings, format, { cwd, rulesMeta: scan.scanRulesMeta }), { multiline: true }));
        process.exitCode = findings.length > 0 ? 1 : 0;
      } catch (error) {
        if (!(error instanceof scan.ScanUsageError) && !(error instanceof scan.ScanToolError)) throw error;
        console.error(`chargeguard scan: ${terminalSafe(error.message)}`);
        process.exitCode = 2;
      }
    });
}
