// Analysis across files (#42): a project's billing code imports its Stripe helpers from other modules, through
// relative imports, re-exports (`export *`, `export { a as b } from`) and a tsconfig path alias (`@lib/*`). The rules
// follow each call into the module it comes from, in both configs, and report where the helper is called.
import path from "node:path";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import plugin from "../src/index.js";
import { fixturesDir } from "./rule-tester.js";

const project = path.join(fixturesDir, "cross-file");

function eslintFor(typed: boolean): ESLint {
  return new ESLint({
    cwd: project,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ["**/*.ts"], languageOptions: { parser: tseslint.parser, parserOptions: typed ? { projectService: true, tsconfigRootDir: project } : {} } },
      { files: ["**/*.ts"], ...plugin.configs[typed ? "recommended-type-checked" : "recommended"] },
    ],
  });
}

async function reports(typed: boolean, file: string) {
  const [result] = await eslintFor(typed).lintFiles([path.join(project, "src", file)]);
  return result!.messages.map((message) => ({ line: message.line, rule: message.ruleId, message: message.message }));
}

for (const typed of [false, true]) {
  describe(`across files (${typed ? "recommended-type-checked" : "recommended"})`, () => {
    it("a helper imported through an alias and a re-export returns options with a randomUUID() key, or a clock in the key", async () => {
      const found = await reports(typed, "billing/invoice-lines.ts");
      expect(found.map(({ line, rule }) => ({ line, rule }))).toEqual([
        { line: 5, rule: "chargeguard/stable-idempotency-key" },
        { line: 6, rule: "chargeguard/stable-idempotency-key" },
        { line: 7, rule: "chargeguard/require-idempotency-key" },
        // a call written over lines: the finding is on the call, not on the line of requestOptions()
        { line: 11, rule: "chargeguard/stable-idempotency-key" },
      ]);
      expect(found[0]!.message).toContain("randomUUID()");
      expect(found[0]!.message).toContain("requestOptions() (../lib/request-options.ts)");
      expect(found[1]!.message).toContain("Date.now()");
      expect(found[2]!.message).toContain("invoiceItems.create()");
    });

    it("a meter event sent by a helper in another file with no identifier is reported where the webhook calls it", async () => {
      const found = await reports(typed, "billing/usage-webhook.ts");
      expect(found.map(({ line, rule }) => ({ line, rule }))).toEqual([{ line: 10, rule: "chargeguard/require-idempotency-key" }]);
      expect(found[0]!.message).toMatch(/^sendUsage\(\) \(\.\.\/lib\/usage\.ts\) calls billing\.meterEvents\.create\(\) without a meter event identifier/);
    });

    it("a CommonJS helper (module.exports = { reportPages }) required by the webhook is followed too", async () => {
      const found = await reports(typed, "billing/pages-webhook.ts");
      expect(found.map(({ line, rule }) => ({ line, rule }))).toEqual([{ line: 8, rule: "chargeguard/require-idempotency-key" }]);
      expect(found[0]!.message).toMatch(/^reportPages\(\) \(\.\.\/lib\/metering\.js\) calls billing\.meterEvents\.create\(\)/);
    });

    it("a BullMQ processor whose worker is made in another file is worded as a job, not a request", async () => {
      const found = await reports(typed, "jobs/close-period.ts");
      expect(found.map(({ line, rule }) => ({ line, rule }))).toEqual([{ line: 4, rule: "chargeguard/require-idempotency-key" }]);
      expect(found[0]!.message).toContain("so a rerun of the same job bills again");
    });

    it("the same helpers given the event's identity report nothing", async () => {
      expect(await reports(typed, "billing/safe.ts")).toEqual([]);
    });
  });
}
