import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { bindingOf } from "./binding.js";
import { staticName } from "./static-name.js";
import { unwrap } from "./unwrap.js";

/**
 * The text a string expression holds as far as the code shows it: literals, template literals (interpolations
 * become `?`), `+`, never-reassigned `const`s, and `{ text }` query objects. `null` when nothing is known.
 */
export function staticText(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node, depth = 0): string | null {
  if (depth > 8) return null;
  const target = unwrap(node);
  switch (target.type) {
    case AST_NODE_TYPES.Literal:
      return typeof target.value === "string" ? target.value : null;
    case AST_NODE_TYPES.TemplateLiteral:
      return target.quasis.map((quasi) => quasi.value.cooked ?? quasi.value.raw).join("?");
    case AST_NODE_TYPES.BinaryExpression: {
      if (target.operator !== "+") return null;
      const left = staticText(sourceCode, target.left, depth + 1);
      const right = staticText(sourceCode, target.right, depth + 1);
      return left === null && right === null ? null : `${left ?? "?"}${right ?? "?"}`;
    }
    case AST_NODE_TYPES.Identifier: {
      const declarator = bindingOf(sourceCode, target)?.definition.node;
      if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) {
        return staticText(sourceCode, declarator.init, depth + 1);
      }
      return null;
    }
    case AST_NODE_TYPES.ObjectExpression: {
      for (const property of target.properties) {
        if (property.type === AST_NODE_TYPES.Property && staticName(property) === "text") {
          return staticText(sourceCode, property.value, depth + 1);
        }
      }
      return null;
    }
    default:
      return null;
  }
}
