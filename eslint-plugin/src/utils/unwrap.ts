import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";

/**
 * Looks through syntax that does not change a value: TS wrappers (`as`, `!`, `satisfies`, `<T>x`, `f<T>`),
 * `await` (a promise of a value carries the value's origin) and optional chains.
 */
export function unwrap(node: TSESTree.Node): TSESTree.Node {
  let current = node;
  for (;;) {
    switch (current.type) {
      case AST_NODE_TYPES.TSAsExpression:
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSSatisfiesExpression:
      case AST_NODE_TYPES.TSTypeAssertion:
      case AST_NODE_TYPES.TSInstantiationExpression:
        current = current.expression;
        break;
      case AST_NODE_TYPES.AwaitExpression:
        current = current.argument;
        break;
      case AST_NODE_TYPES.ChainExpression:
        current = current.expression;
        break;
      default:
        return current;
    }
  }
}
