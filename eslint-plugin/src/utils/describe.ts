import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";

/** A short quote of a node for messages: a call as `callee()`, anything else by its first line (60 characters). */
export function describe(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node): string {
  const text =
    node.type === AST_NODE_TYPES.CallExpression ? `${sourceCode.getText(node.callee)}()` : sourceCode.getText(node);
  const line = text.split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
