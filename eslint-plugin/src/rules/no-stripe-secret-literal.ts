import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { isTestFile, LIVE_KEY } from "../utils/test-file.js";

/** A Stripe secret (`sk_`) or restricted (`rk_`) key: prefix, mode, then a key body (real ones are 24+ characters). */
const STRIPE_KEY = /(?<![A-Za-z0-9])(sk|rk)_(live|test)_[A-Za-z0-9]{16,}/;

const ENV_NAME = { sk: "STRIPE_SECRET_KEY", rk: "STRIPE_RESTRICTED_KEY" } as const;

export default createRule<[], "keyLiteral" | "readFromEnvironment">({
  name: "no-stripe-secret-literal",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description: "Disallow Stripe secret and restricted keys written in source code",
      recommended: true,
    },
    messages: {
      keyLiteral:
        "This string holds a Stripe {{kind}} key ({{prefix}}...): anyone who can read the repository can move money with it. Read it from the environment or a secret store, and roll the key.",
      readFromEnvironment: "Read it from process.env.{{env}}.",
    },
    schema: [],
    defaultOptions: [],
  },
  create(context) {
    // A test-mode key in a test or a mock is not a leak; a live key is, wherever it is written (utils/test-file.ts).
    const liveOnly = isTestFile(context.filename);
    function check(node: TSESTree.Node, text: string, wholeLiteral: boolean): void {
      if (text.length < 24 || !text.includes("k_")) return;
      const match = STRIPE_KEY.exec(text);
      if (!match || (liveOnly && !LIVE_KEY.test(match[0]))) return;
      const type = match[1] as "sk" | "rk";
      const env = ENV_NAME[type];
      context.report({
        node,
        messageId: "keyLiteral",
        data: { kind: type === "sk" ? "secret" : "restricted", prefix: `${type}_${match[2]}_` },
        suggest:
          wholeLiteral && match[0] === text
            ? [{ messageId: "readFromEnvironment", data: { env }, fix: (fixer) => fixer.replaceText(node, `process.env.${env}`) }]
            : [],
      });
    }
    return {
      Literal(node) {
        if (typeof node.value === "string") check(node, node.value, isValuePosition(node));
      },
      TemplateElement(node) {
        const template = node.parent;
        const whole = template?.type === AST_NODE_TYPES.TemplateLiteral && template.quasis.length === 1 && template.parent?.type !== AST_NODE_TYPES.TaggedTemplateExpression;
        check(whole ? template : node, node.value.cooked ?? node.value.raw, whole);
      },
    };
  },
});

/** Where `process.env.X` can replace the literal: not a module specifier, a property key, a type or a JSX attribute. */
function isValuePosition(node: TSESTree.Literal): boolean {
  const parent = node.parent;
  switch (parent?.type) {
    case AST_NODE_TYPES.ImportDeclaration:
    case AST_NODE_TYPES.ExportNamedDeclaration:
    case AST_NODE_TYPES.ExportAllDeclaration:
    case AST_NODE_TYPES.TSLiteralType:
    case AST_NODE_TYPES.JSXAttribute:
      return false;
    case AST_NODE_TYPES.Property:
    case AST_NODE_TYPES.PropertyDefinition:
      return parent.value === node;
    default:
      return parent !== undefined;
  }
}
