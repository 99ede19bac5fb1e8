import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";

type Keyed = TSESTree.MemberExpression | TSESTree.Property | TSESTree.PropertyDefinition | TSESTree.MethodDefinition;

/** The name of a property access or definition when it is known without running the code. */
export function staticName(node: Keyed): string | null {
  const key = node.type === AST_NODE_TYPES.MemberExpression ? node.property : node.key;
  if (!node.computed && key.type === AST_NODE_TYPES.Identifier) return key.name;
  if (!node.computed && key.type === AST_NODE_TYPES.PrivateIdentifier) return `#${key.name}`;
  return literalKey(key);
}

function literalKey(key: TSESTree.Node): string | null {
  if (key.type === AST_NODE_TYPES.Literal && (typeof key.value === "string" || typeof key.value === "number")) {
    return String(key.value);
  }
  if (key.type === AST_NODE_TYPES.TemplateLiteral && key.expressions.length === 0) {
    return key.quasis[0]?.value.cooked ?? null;
  }
  return null;
}

/** The called method's name: `a.b.name(...)` or `name(...)`. */
export function calleeName(call: TSESTree.CallExpression | TSESTree.NewExpression): string | null {
  const callee = call.callee;
  if (callee.type === AST_NODE_TYPES.Identifier) return callee.name;
  if (callee.type === AST_NODE_TYPES.MemberExpression) return staticName(callee);
  return null;
}
