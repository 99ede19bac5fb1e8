// The rule as the detection tests run it: every report as the rule makes it, without its editor suggestions. The
// suggestions (what they offer, where they are withheld, the code they write) are asserted case by case in
// tests/rules/suggestions.test.ts; the detection tests, written before the rules had any, check what is reported.
import type { RuleContext, RuleModule } from "@typescript-eslint/utils/ts-eslint";

export function detectionOnly<MessageIds extends string, Options extends readonly unknown[]>(rule: RuleModule<MessageIds, Options>): RuleModule<MessageIds, Options> {
  return {
    ...rule,
    meta: { ...rule.meta, hasSuggestions: false },
    create(context: Readonly<RuleContext<MessageIds, Options>>) {
      const withoutSuggestions = Object.create(context, {
        report: { value: (descriptor: Parameters<typeof context.report>[0]) => context.report({ ...descriptor, suggest: null }) },
      }) as typeof context;
      return rule.create(withoutSuggestions);
    },
  };
}
