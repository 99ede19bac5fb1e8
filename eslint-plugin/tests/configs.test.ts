// configs.recommended and configs["recommended-type-checked"] in a real ESLint instance, on TypeScript (the
// typescript-eslint parser) and on CommonJS JavaScript (ESLint's own parser, espree).
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import plugin from "../src/index.js";
import { brokenConsumer, expectedReports } from "./broken-consumer.js";
import { fixturesDir } from "./rule-tester.js";

const ruleIds = Object.keys(plugin.rules).map((name) => `chargeguard/${name}`).sort();

function reports(results: ESLint.LintResult[]) {
  return results
    .flatMap((result) => result.messages)
    .map((message) => ({ line: message.line, ruleId: message.ruleId ?? `fatal: ${message.message}` }))
    .sort((a, b) => a.line - b.line);
}

describe("configs", () => {
  it("recommended registers the plugin as chargeguard and turns every rule on as an error", () => {
    const config = plugin.configs.recommended;
    expect(config.plugins?.chargeguard).toBe(plugin);
    expect(Object.keys(config.rules ?? {}).sort()).toEqual(ruleIds);
    expect(new Set(Object.values(config.rules ?? {}))).toEqual(new Set(["error"]));
    expect(plugin.meta.name).toBe("eslint-plugin-chargeguard");
  });

  it("the rules' metadata decides the configs: recommended rules in both, typeChecked where the options take it", () => {
    const typedRules = plugin.configs["recommended-type-checked"].rules ?? {};
    for (const [name, rule] of Object.entries(plugin.rules)) {
      const [defaults] = (rule.meta.defaultOptions ?? []) as [Record<string, unknown>?];
      const expected = defaults && "typeChecked" in defaults ? ["error", { typeChecked: true }] : "error";
      expect(rule.meta.docs?.recommended, name).toBe(true);
      expect(typedRules[`chargeguard/${name}`], name).toEqual(expected);
    }
    expect(Object.values(typedRules).filter((setting) => Array.isArray(setting))).toHaveLength(5);
  });

  it("recommended flags every pattern in a broken TypeScript consumer", async () => {
    const eslint = new ESLint({
      cwd: fixturesDir,
      overrideConfigFile: true,
      overrideConfig: [{ files: ["**/*.ts"] }, tseslint.configs.base, plugin.configs.recommended],
    });
    const results = await eslint.lintText(brokenConsumer, { filePath: `${fixturesDir}/consumer.ts` });
    expect(reports(results)).toEqual(expectedReports(brokenConsumer));
    expect(new Set(reports(results).map((report) => report.ruleId))).toEqual(new Set(ruleIds));
  });

  it("recommended works on CommonJS JavaScript with ESLint's default parser", async () => {
    const eslint = new ESLint({ cwd: fixturesDir, overrideConfigFile: true, overrideConfig: [plugin.configs.recommended] });
    const source = `
const Stripe = require("stripe");
const stripe = Stripe(process.env.STRIPE_SECRET_KEY);
module.exports.handle = async (receiver, message) => {
  try {
    await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: String(message.deliveryCount) }); // stable-idempotency-key
  } catch (error) {
    await receiver.abandonMessage(message); // no-abandon-on-stripe-error
  }
};
`;
    const results = await eslint.lintText(source, { filePath: `${fixturesDir}/consumer.cjs` });
    expect(reports(results)).toEqual(expectedReports(source));
  });

  it("recommended-type-checked runs with a program and turns on the typed confirmation", async () => {
    const typedConfig = plugin.configs["recommended-type-checked"];
    expect(Object.keys(typedConfig.rules ?? {}).sort()).toEqual(ruleIds);
    expect(typedConfig.rules?.["chargeguard/stable-idempotency-key"]).toEqual(["error", { typeChecked: true }]);
    const eslint = new ESLint({
      cwd: fixturesDir,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ["**/*.ts"] },
        tseslint.configs.base,
        { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: fixturesDir } } },
        typedConfig,
      ],
    });
    const results = await eslint.lintText(brokenConsumer, { filePath: `${fixturesDir}/file.ts` });
    expect(reports(results)).toEqual(expectedReports(brokenConsumer));
  });
});
