import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";

export type FunctionNode =
  | TSESTree.FunctionDeclaration
  | TSESTree.FunctionExpression
  | TSESTree.ArrowFunctionExpression;

export function isFunction(node: TSESTree.Node): node is FunctionNode {
  return (
    node.type === AST_NODE_TYPES.FunctionDeclaration ||
    node.type === AST_NODE_TYPES.FunctionExpression ||
    node.type === AST_NODE_TYPES.ArrowFunctionExpression
  );
}

/**
 * Visits `root` and its descendants in source order. `visit` returns `false` to skip a node's children.
 * Type annotations are skipped: they hold no runtime values.
 */
export function walk(
  sourceCode: Readonly<TSESLint.SourceCode>,
  root: TSESTree.Node,
  visit: (node: TSESTree.Node) => boolean | void,
): void {
  const keys = sourceCode.visitorKeys;
  const stack: TSESTree.Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (visit(node) === false) continue;
    // Children pushed last key first, last item first, so they are visited in source order.
    const nodeKeys = keys[node.type] ?? NO_KEYS;
    for (let keyIndex = nodeKeys.length - 1; keyIndex >= 0; keyIndex -= 1) {
      const key = nodeKeys[keyIndex]!;
      if (TYPE_KEYS.has(key)) continue;
      const value = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(value)) {
        for (let index = value.length - 1; index >= 0; index -= 1) if (isNode(value[index])) stack.push(value[index]);
      } else if (isNode(value)) {
        stack.push(value);
      }
    }
  }
}

const NO_KEYS: readonly string[] = [];
const TYPE_KEYS = new Set(["typeAnnotation", "returnType", "typeArguments", "typeParameters"]);

function isNode(value: unknown): value is TSESTree.Node {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}
