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
    const children: TSESTree.Node[] = [];
    for (const key of keys[node.type] ?? []) {
      if (key === "typeAnnotation" || key === "returnType" || key === "typeArguments" || key === "typeParameters") continue;
      const value = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) children.push(item);
      } else if (isNode(value)) {
        children.push(value);
      }
    }
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]!);
  }
}

function isNode(value: unknown): value is TSESTree.Node {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}
