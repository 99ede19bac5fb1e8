// The Python and Java rules (ast-grep) on fixtures of our own that reproduce each seed failure pattern, and on their
// fixed versions: every line marked `expect: <rule>` is reported with that rule id, nothing else is, and the fixed
// code is clean. The ids are the ESLint plugin's.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import plugin from "../../src/index.js";
import { formatFindings, runScan, scanRulesMeta, ScanUsageError } from "../../src/scan/index.js";
import { expectedFindings } from "./expected-findings.js";

const fixtures = fileURLToPath(new URL("../scan-fixtures", import.meta.url));
const ruleIds = Object.keys(plugin.rules).map((name) => `chargeguard/${name}`).sort();

const byPosition = (a: { file: string; line: number; ruleId: string }, b: { file: string; line: number; ruleId: string }) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.ruleId.localeCompare(b.ruleId);

describe.each(["python", "java"])("chargeguard scan on %s", (language) => {
  it("reports each seed failure pattern with the ESLint rule's id, and nothing else", async () => {
    const findings = await runScan([`${language}/broken`], { cwd: fixtures });
    const expected = expectedFindings(fixtures, `${language}/broken`);
    expect(findings.map(({ ruleId, file, line }) => ({ ruleId, file, line })).sort(byPosition)).toEqual(expected.sort(byPosition));
    expect(new Set(findings.map((finding) => finding.language))).toEqual(new Set([language]));
    // Every rule of the plugin has its shape in this language.
    expect([...new Set(findings.map((finding) => finding.ruleId))].sort()).toEqual(ruleIds);
  });

  it("keeps the fixed versions clean", async () => {
    expect(await runScan([`${language}/fixed`], { cwd: fixtures })).toEqual([]);
  });
});

describe("scan output", () => {
  it("prints json as [{ ruleId, file, line, message }]", async () => {
    const findings = await runScan(["python/broken/message_id_key.py"], { cwd: fixtures });
    const printed = JSON.parse(formatFindings(findings, "json", { cwd: fixtures, rulesMeta: scanRulesMeta })) as unknown[];
    expect(printed).toEqual([
      { ruleId: "chargeguard/stable-idempotency-key", file: "python/broken/message_id_key.py", line: 17, message: expect.stringContaining("idempotency key") },
      { ruleId: "chargeguard/stable-idempotency-key", file: "python/broken/message_id_key.py", line: 29, message: expect.stringContaining("idempotency key") },
    ]);
  });

  it("prints SARIF 2.1.0 with the ESLint rules' descriptions and docs links", async () => {
    const findings = await runScan(["java/broken/AckInsideTransaction.java"], { cwd: fixtures });
    const log = JSON.parse(formatFindings(findings, "sarif", { cwd: fixtures, rulesMeta: scanRulesMeta })) as {
      version: string;
      runs: { tool: { driver: { name: string; rules: { id: string; helpUri?: string }[] } }; results: { ruleId: string; locations: unknown[] }[] }[];
    };
    expect(log.version).toBe("2.1.0");
    expect(log.runs[0]?.tool.driver.name).toBe("chargeguard scan");
    expect(log.runs[0]?.tool.driver.rules).toEqual([expect.objectContaining({ id: "chargeguard/record-before-settle", helpUri: expect.stringContaining("record-before-settle.md") })]);
    expect(log.runs[0]?.results[0]?.locations).toEqual([
      { physicalLocation: { artifactLocation: { uri: "java/broken/AckInsideTransaction.java", uriBaseId: "%SRCROOT%" }, region: { startLine: 23, startColumn: 9 } } },
    ]);
  });

  it("refuses a path that does not exist", async () => {
    await expect(runScan(["python/nowhere"], { cwd: fixtures })).rejects.toThrow(ScanUsageError);
  });
});
