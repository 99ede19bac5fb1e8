import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { isTestFile } from "../utils/test-file.js";
import { analysisFor } from "../utils/analysis.js";
import { withFileIndex } from "../utils/file-index.js";
import { describe } from "../utils/describe.js";
import { possibleTexts } from "./no-receive-and-delete/possible-texts.js";
import { staticName } from "../utils/static-name.js";
import { isMoneyMovingCall, MONEY_MOVING_METHODS } from "../utils/stripe-call.js";
import { typeCheckedSchema, type TypeCheckedOption } from "../utils/type-checked-option.js";

export default createRule<[TypeCheckedOption], "receiveAndDelete" | "usePeekLock">({
  name: "no-receive-and-delete",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description: "Disallow the receiveAndDelete receive mode in files that move money through Stripe",
      recommended: true,
    },
    messages: {
      receiveAndDelete:
        'receiveMode can be "receiveAndDelete", which removes the message when it is delivered, before `{{charge}}` runs and its outcome is recorded: a crash in between loses the billing event. Use "peekLock" and settle after the record is written.',
      usePeekLock: 'Use receiveMode "peekLock".',
    },
    schema: [typeCheckedSchema],
    defaultOptions: [{ typeChecked: false }],
  },
  create(context, [options]) {
    // A test runs against mocks or Stripe's test mode: no money moves twice (utils/test-file.ts).
    if (isTestFile(context.filename)) return {};
    const analysis = analysisFor(context, options.typeChecked === true);
    const modes: TSESTree.Property[] = [];
    // Charges are only looked for when the file sets receiveAndDelete (most files do not).
    const candidates: TSESTree.CallExpression[] = [];
    return withFileIndex(context.sourceCode, {
      Property(node) {
        if (node.key.type !== AST_NODE_TYPES.Identifier || node.key.name !== "receiveMode" || node.computed) return;
        if (possibleTexts(analysis, node.value).includes("receiveAndDelete")) modes.push(node);
      },
      CallExpression(node) {
        if (node.callee.type !== AST_NODE_TYPES.MemberExpression) return;
        const method = staticName(node.callee);
        if (method !== null && MONEY_MOVING_METHODS.has(method)) candidates.push(node);
      },
      "Program:exit"() {
        if (modes.length === 0) return;
        const charge = candidates.find((call) => isMoneyMovingCall(analysis, call));
        if (!charge) return;
        const chargeText = describe(analysis.sourceCode, charge);
        for (const mode of modes) {
          const value = mode.value;
          context.report({
            node: value,
            messageId: "receiveAndDelete",
            data: { charge: chargeText },
            suggest:
              value.type === AST_NODE_TYPES.Literal && value.value === "receiveAndDelete"
                ? [{ messageId: "usePeekLock", fix: (fixer) => fixer.replaceText(value, `${value.raw[0] ?? '"'}peekLock${value.raw[0] ?? '"'}`) }]
                : [],
          });
        }
      },
    });
  },
});
