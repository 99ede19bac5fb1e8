import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";

/** A short quote of a node for messages: a call as `callee()`, anything else on one line (at most 60 characters). */
export function describe(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node): string {
  const text =
    node.type === AST_NODE_TYPES.CallExpression
      ? `${sourceCode.getText(node.callee).replace(/\s+/g, "")}()`
      : sourceCode.getText(node).replace(/\s+/g, " ");
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
