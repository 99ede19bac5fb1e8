// Every broken example is caught by eslint-plugin-chargeguard's recommended config, by the rule for its seed's
// failure mode, with the real ESLint; the consumer the template generates lints clean with the same config.
import { fileURLToPath } from "node:url";
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { beforeAll, describe, expect, it } from "vitest";
import chargeguard from "../../eslint-plugin/src/index.js";
import { brokenExamples } from "../../examples/broken/index.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The rule each example must trip, named after the seed's failure mode it ports. */
const expectedRules: Record<string, string[]> = {
  "no-idempotency-key": ["chargeguard/require-idempotency-key"],
  "message-id-key": ["chargeguard/stable-idempotency-key"],
  "random-uuid-key": ["chargeguard/stable-idempotency-key"],
  "abandon-on-timeout": ["chargeguard/no-abandon-on-stripe-error", "chargeguard/require-idempotency-key"],
  "abandon-on-decline": ["chargeguard/no-abandon-on-stripe-error", "chargeguard/require-idempotency-key"],
  "complete-before-record": ["chargeguard/record-before-settle"],
  "short-renewal-deadline": ["chargeguard/lock-renewal-covers-stripe", "chargeguard/stable-idempotency-key"],
  "receive-and-delete": ["chargeguard/no-receive-and-delete"],
  "charge-random-key": ["chargeguard/stable-idempotency-key"],
  "invoice-per-delivery-keys": ["chargeguard/stable-idempotency-key"],
  "meter-event-no-identifier": ["chargeguard/require-idempotency-key"],
};

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ["**/*.ts"], languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module" } } },
      chargeguard.configs.recommended as Linter.Config,
    ],
  });
});

async function rulesFound(files: string[]): Promise<Map<string, string[]>> {
  const results = await eslint.lintFiles(files);
  return new Map(
    results.map((result) => [
      result.filePath.slice(root.length),
      result.messages.map((message) => message.ruleId ?? `fatal: ${message.message}`),
    ]),
  );
}

describe("the broken examples", () => {
  it("lists every failure mode of the issue, each with its rule", () => {
    expect(brokenExamples.map((example) => example.name).sort()).toEqual(Object.keys(expectedRules).sort());
  });

  for (const example of brokenExamples) {
    it(`${example.name} is flagged by ${expectedRules[example.name]?.join(" and ")}`, async () => {
      const file = `examples/broken/${example.file.replace(/\.js$/, ".ts")}`;
      const found = (await rulesFound([file])).get(file) ?? [];
      expect(found.filter((rule) => rule.startsWith("fatal"))).toEqual([]);
      for (const rule of expectedRules[example.name] ?? []) expect(found).toContain(rule);
    });
  }
});

describe("the generated consumers", () => {
  it.each(["generated-consumer", "generated-consumer-charge", "generated-consumer-invoice", "generated-consumer-meter-event", "generated-consumer-otlp"])(
    "examples/%s lints clean with the recommended config",
    async (example) => {
      const found = await rulesFound([`examples/${example}/src`, `examples/${example}/test`]);
      expect(found.size).toBeGreaterThan(0);
      expect([...found].filter(([, rules]) => rules.length > 0)).toEqual([]);
    },
  );
});
