// The SARIF 2.1.0 formatter: its shape on real ESLint results, and the documented CLI invocation on the built
// package (`npm run build` first; `npm test` does); and Microsoft's formatter, which the CI workflows use, on this
// ESLint.
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { afterAll, describe, expect, it } from "vitest";
import formatSarif, { PARSE_ERROR_RULE } from "../src/formatters/sarif.js";
import plugin from "../src/index.js";
import { brokenConsumer, expectedReports } from "./broken-consumer.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const workDir = path.join(root, ".tmp", `sarif-${randomBytes(4).toString("hex")}`);
afterAll(() => rm(workDir, { recursive: true, force: true }));

interface SarifLog {
  $schema: string;
  version: string;
  runs: {
    tool: { driver: { name: string; rules: { id: string; shortDescription: { text: string }; helpUri?: string }[] } };
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: Record<string, number> } }[];
    }[];
  }[];
}

function expectSarifShape(log: SarifLog, schema = "https://json.schemastore.org/sarif-2.1.0.json"): void {
  expect(log.version).toBe("2.1.0");
  expect(log.$schema).toBe(schema);
  expect(log.runs).toHaveLength(1);
  const [run] = log.runs;
  expect(run!.tool.driver.name).toBe("ESLint");
  for (const result of run!.results) {
    expect(run!.tool.driver.rules[result.ruleIndex]!.id).toBe(result.ruleId);
    expect(["error", "warning"]).toContain(result.level);
    expect(result.message.text.length).toBeGreaterThan(0);
    const [location] = result.locations;
    expect(location!.physicalLocation.artifactLocation.uri).toMatch(/\S/);
    expect(location!.physicalLocation.region.startLine).toBeGreaterThanOrEqual(1);
    expect(location!.physicalLocation.region.startColumn).toBeGreaterThanOrEqual(1);
  }
}

describe("SARIF formatter", () => {
  it("turns real lint results into SARIF 2.1.0 with rules, levels and locations", async () => {
    await mkdir(path.join(workDir, "src"), { recursive: true });
    const eslint = new ESLint({
      cwd: workDir,
      overrideConfigFile: true,
      overrideConfig: [{ files: ["**/*.ts"] }, tseslint.configs.base, plugin.configs.recommended, { rules: { "chargeguard/require-idempotency-key": "warn" } }],
    });
    const results = [
      ...(await eslint.lintText(brokenConsumer, { filePath: path.join(workDir, "src", "billing consumer.ts") })),
      ...(await eslint.lintText("const = ;", { filePath: path.join(workDir, "src", "broken.ts") })),
    ];
    const log = JSON.parse(formatSarif(results, { cwd: workDir, rulesMeta: eslint.getRulesMetaForResults(results) })) as SarifLog;

    expectSarifShape(log);
    const run = log.runs[0]!;
    const expected = expectedReports(brokenConsumer);
    const consumerResults = run.results.filter((result) => result.ruleId !== PARSE_ERROR_RULE);
    expect(consumerResults.map((result) => [result.ruleId, result.locations[0]!.physicalLocation.region.startLine])).toEqual(
      expected.map((report) => [report.ruleId, report.line]),
    );
    expect(consumerResults.every((result) => result.locations[0]!.physicalLocation.artifactLocation.uri === "src/billing%20consumer.ts")).toBe(true);
    expect(consumerResults.every((result) => result.locations[0]!.physicalLocation.artifactLocation.uriBaseId === "%SRCROOT%")).toBe(true);
    expect(consumerResults.find((result) => result.ruleId === "chargeguard/require-idempotency-key")!.level).toBe("warning");
    expect(consumerResults.find((result) => result.ruleId === "chargeguard/record-before-settle")!.level).toBe("error");

    const stable = run.tool.driver.rules.find((rule) => rule.id === "chargeguard/stable-idempotency-key")!;
    expect(stable.helpUri).toMatch(/eslint-plugin\/docs\/rules\/stable-idempotency-key\.md$/);
    expect(stable.shortDescription.text).toBe(plugin.rules["stable-idempotency-key"].meta.docs?.description);

    const parseError = run.results.find((result) => result.ruleId === PARSE_ERROR_RULE)!;
    expect(parseError.level).toBe("error");
    expect(parseError.locations[0]!.physicalLocation.artifactLocation.uri).toBe("src/broken.ts");
  });

  it("an empty run is valid SARIF with no results", () => {
    const log = JSON.parse(formatSarif([{ filePath: "/x/clean.ts", messages: [] }], { cwd: "/x" })) as SarifLog;
    expectSarifShape(log);
    expect(log.runs[0]!.results).toEqual([]);
  });

  it("works as `eslint -f ./node_modules/eslint-plugin-chargeguard/dist/formatters/sarif.js` on the built package", async () => {
    await mkdir(workDir, { recursive: true });
    await writeFile(path.join(workDir, "consumer.ts"), brokenConsumer);
    await writeFile(
      path.join(workDir, "eslint.config.js"),
      `import tseslint from "typescript-eslint";\nimport chargeguard from "eslint-plugin-chargeguard";\n` +
        `export default [{ files: ["**/*.ts"] }, tseslint.configs.base, chargeguard.configs.recommended];\n`,
    );
    const formatter = path.relative(workDir, path.join(root, "node_modules", "eslint-plugin-chargeguard", "dist", "formatters", "sarif.js"));
    const eslintBin = path.join(root, "node_modules", "eslint", "bin", "eslint.js");
    const run = promisify(execFile)(process.execPath, [eslintBin, "-f", formatter, "consumer.ts"], { cwd: workDir });
    const failure = (await run.then(() => null, (error: { code: number; stdout: string; stderr: string }) => error))!;
    expect(failure?.code, failure?.stderr).toBe(1); // errors found
    const log = JSON.parse(failure.stdout) as SarifLog;
    expectSarifShape(log);
    expect(log.runs[0]!.results.map((result) => result.ruleId)).toEqual(expectedReports(brokenConsumer).map((report) => report.ruleId));
  });

  // What the generated project's CI and the README use for ESLint's findings (installed there in the CI step only:
  // it depends on ESLint 8 and would put that in every project's tree).
  it("Microsoft's @microsoft/eslint-formatter-sarif works with this ESLint (`eslint -f @microsoft/sarif`) on a real lint run", async () => {
    const dir = path.join(workDir, "microsoft");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "consumer.ts"), brokenConsumer);
    await writeFile(
      path.join(dir, "eslint.config.js"),
      `import tseslint from "typescript-eslint";\nimport chargeguard from "eslint-plugin-chargeguard";\n` +
        `export default [{ files: ["**/*.ts"] }, tseslint.configs.base, chargeguard.configs.recommended];\n`,
    );
    const eslintBin = path.join(root, "node_modules", "eslint", "bin", "eslint.js");
    const run = promisify(execFile)(process.execPath, [eslintBin, "-f", "@microsoft/sarif", "-o", "eslint.sarif", "consumer.ts"], { cwd: dir });
    const failure = (await run.then(() => null, (error: { code: number; stdout: string; stderr: string }) => error))!;
    expect(failure?.code, failure?.stderr).toBe(1); // errors found, the log written
    const log = JSON.parse(await readFile(path.join(dir, "eslint.sarif"), "utf8")) as SarifLog & {
      runs: { tool: { driver: { version?: string } }; artifacts: { location: { uri: string } }[] }[];
    };
    expectSarifShape(log, "http://json.schemastore.org/sarif-2.1.0-rtm.5");
    const [sarifRun] = log.runs;
    expect(sarifRun!.tool.driver.version).toBe(ESLint.version);
    expect(sarifRun!.results.map((result) => [result.ruleId, result.locations[0]!.physicalLocation.region.startLine])).toEqual(
      expectedReports(brokenConsumer).map((report) => [report.ruleId, report.line]),
    );
    // Absolute file URIs (code scanning makes them relative to the checkout), each listed as an artifact.
    const consumerUri = pathToFileURL(path.join(dir, "consumer.ts")).href;
    expect(sarifRun!.results.every((result) => result.locations[0]!.physicalLocation.artifactLocation.uri === consumerUri)).toBe(true);
    expect(sarifRun!.artifacts.map((artifact) => artifact.location.uri)).toEqual([consumerUri]);
    const stable = sarifRun!.tool.driver.rules.find((rule) => rule.id === "chargeguard/stable-idempotency-key")!;
    expect(stable.helpUri).toMatch(/eslint-plugin\/docs\/rules\/stable-idempotency-key\.md$/);
  });
});
