// Test and mock files (#42, utils/test-file.ts): a team runs its tests against mocks and Stripe's test mode, so a
// keyless charge there is not a production risk and a test-mode key in a mock is not a leak; a live key is reported
// wherever it is written. The same code under a production name is reported, in ESLint and in the scan.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { afterAll, describe, expect, it } from "vitest";
import plugin from "../src/index.js";
import { runScan } from "../src/scan/index.js";
import { isTestFile } from "../src/utils/test-file.js";
import { fixturesDir } from "./rule-tester.js";

const TEST_KEY = "sk_test_4eC39HqLyjWDarjtT1zdp7dc";
const LIVE_KEY = `sk_live_${"51Hx0aBcDeFgHiJkLmNoPqRs"}`;
const charge = `import Stripe from "stripe";\nconst stripe = new Stripe("${TEST_KEY}");\nexport async function pay() {\n  await stripe.paymentIntents.create({ amount: 500, currency: "eur", confirm: true });\n}\n`;

async function rules(file: string, text: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: fixturesDir,
    overrideConfigFile: true,
    overrideConfig: [{ files: ["**/*.{ts,js}"], languageOptions: { parser: tseslint.parser } }, { files: ["**/*.{ts,js}"], ...plugin.configs.recommended }],
  });
  const [result] = await eslint.lintText(text, { filePath: path.join(fixturesDir, file) });
  return result!.messages.map((message) => message.ruleId ?? message.message);
}

describe("ESLint", () => {
  it("reports a keyless charge and a test-mode key in production code", async () => {
    expect(await rules("billing/pay.ts", charge)).toEqual(["chargeguard/no-stripe-secret-literal", "chargeguard/require-idempotency-key"]);
  });

  it("reports neither in a test or a mock, and still reports a live key there", async () => {
    expect(await rules("billing/pay.test.ts", charge)).toEqual([]);
    expect(await rules("__mocks__/stripe.js", `module.exports = { apiKey: "${TEST_KEY}" };\n`)).toEqual([]);
    expect(await rules("billing/pay.spec.ts", `export const key = "${LIVE_KEY}";\n`)).toEqual(["chargeguard/no-stripe-secret-literal"]);
  });
});

describe("scan", () => {
  const project = mkdtempSync(path.join(tmpdir(), "chargeguard-test-files-"));
  afterAll(() => rmSync(project, { recursive: true, force: true }));
  const python = (key: string) => `import stripe\nstripe.api_key = "${key}"\nstripe.PaymentIntent.create(amount=500, currency="eur", confirm=True)\n`;

  it("reports a keyless charge and a test-mode key in production code, only a live key in tests", async () => {
    mkdirSync(path.join(project, "tests"));
    writeFileSync(path.join(project, "pay.py"), python(TEST_KEY));
    writeFileSync(path.join(project, "tests", "test_pay.py"), python(TEST_KEY));
    writeFileSync(path.join(project, "tests", "conftest.py"), python(LIVE_KEY));
    const found = (await runScan(["."], { cwd: project })).map(({ ruleId, file }) => `${file} ${ruleId}`);
    expect(found).toEqual(["pay.py chargeguard/no-stripe-secret-literal", "pay.py chargeguard/require-idempotency-key", "tests/conftest.py chargeguard/no-stripe-secret-literal"]);
  });
});

it("knows test files by their runners' names, not by any folder called test", () => {
  const tests = ["src/pay.test.ts", "a/__tests__/pay.js", "a/__mocks__/stripe.js", "tests/test_pay.py", "pay_test.py", "conftest.py", "src/test/java/PayTest.java", "PayIT.java"];
  const production = ["tests/fixtures/file.ts", "test-harness/pay.ts", "src/testing.py", "src/main/java/Attest.java", "latest.py"];
  expect(tests.filter(isTestFile)).toEqual(tests);
  expect(production.filter(isTestFile)).toEqual([]);
});
