import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "../../utils/analysis.js";
import { bindingOf } from "../../utils/binding.js";
import { staticName } from "../../utils/static-name.js";
import { staticText } from "../../utils/static-text.js";
import { unwrap } from "../../utils/unwrap.js";

/**
 * Every string a value can be, as far as the code shows: a literal or `const`, a member of a `const` object or an
 * enum (`MODES.fast`, `Mode.Delete`), both branches of `?:`, `??` and `||`. With types, the checker's string
 * literal union decides when it has one. Empty when nothing is known.
 */
export function possibleTexts(analysis: Analysis, node: TSESTree.Node): string[] {
  const typed = analysis.oracle?.stringLiterals(node);
  if (typed && typed.length > 0) return typed;
  return texts(analysis, node, 0);
}

function texts(analysis: Analysis, node: TSESTree.Node, depth: number): string[] {
  if (depth > 8) return [];
  const target = unwrap(node);
  switch (target.type) {
    case AST_NODE_TYPES.ConditionalExpression:
      return [...texts(analysis, target.consequent, depth + 1), ...texts(analysis, target.alternate, depth + 1)];
    case AST_NODE_TYPES.LogicalExpression:
      return [...texts(analysis, target.left, depth + 1), ...texts(analysis, target.right, depth + 1)];
    case AST_NODE_TYPES.Identifier: {
      const declarator = bindingOf(analysis.sourceCode, target)?.definition.node;
      if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) {
        return texts(analysis, declarator.init, depth + 1);
      }
      return [];
    }
    case AST_NODE_TYPES.MemberExpression: {
      const member = memberValue(analysis, target);
      return member ? texts(analysis, member, depth + 1) : [];
    }
    default: {
      const text = staticText(analysis.sourceCode, target);
      return text === null ? [] : [text];
    }
  }
}

/** `MODES.fast` of `const MODES = { fast: "..." }`, or `Mode.Delete` of `enum Mode { Delete = "..." }`. */
function memberValue(analysis: Analysis, member: TSESTree.MemberExpression): TSESTree.Node | null {
  const name = staticName(member);
  const object = unwrap(member.object);
  if (name === null || object.type !== AST_NODE_TYPES.Identifier) return null;
  const declaration = bindingOf(analysis.sourceCode, object)?.definition.node;
  if (declaration?.type === AST_NODE_TYPES.TSEnumDeclaration) {
    const enumMember = declaration.body.members.find((candidate) => candidate.id.type === AST_NODE_TYPES.Identifier && candidate.id.name === name);
    return enumMember?.initializer ?? null;
  }
  if (declaration?.type !== AST_NODE_TYPES.VariableDeclarator || !declaration.init) return null;
  const literal = unwrap(declaration.init);
  if (literal.type !== AST_NODE_TYPES.ObjectExpression) return null;
  const property = literal.properties.find(
    (candidate): candidate is TSESTree.Property => candidate.type === AST_NODE_TYPES.Property && staticName(candidate) === name,
  );
  return property?.value ?? null;
}
