// Runs one set of cases under both configs' analyses: names only (`recommended`) and with the type checker
// (`recommended-type-checked`). The same expected reports in both modes is the proof that the typed analysis never
// loses a finding the syntax-only one makes on these shapes.
import type { RuleModule } from "@typescript-eslint/utils/ts-eslint";
import type { InvalidTestCase, ValidTestCase } from "@typescript-eslint/rule-tester";
import { ruleTester, typedRuleTester } from "../rule-tester.js";

type Options = [{ typeChecked?: boolean }];

export function inBothModes<MessageIds extends string>(
  name: string,
  rule: RuleModule<MessageIds, Options>,
  tests: { valid: ValidTestCase<Options>[]; invalid: InvalidTestCase<MessageIds, Options>[] },
): void {
  ruleTester.run(`${name} (names only)`, rule, tests);
  typedRuleTester.run(`${name} (typed)`, rule, {
    valid: tests.valid.map((test) => ({ ...test, options: [{ typeChecked: true }] as Options })),
    invalid: tests.invalid.map((test) => ({ ...test, options: [{ typeChecked: true }] as Options })),
  });
}
