import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { staticName } from "./static-name.js";

/** A step into a destructured value: a property name, or an array index. */
export type PathStep = string | number;

/**
 * The property path from a destructuring pattern's root to one bound identifier:
 * `{ a: { b: [x] } }` gives `["a", "b", 0]` for `x`. `null` when the identifier is not bound by this pattern or
 * sits under a rest element or a computed key (its source is not one property).
 */
export function patternPath(pattern: TSESTree.Node, target: TSESTree.Identifier): PathStep[] | null {
  switch (pattern.type) {
    case AST_NODE_TYPES.Identifier:
      return pattern === target || (pattern.name === target.name && sameRange(pattern, target)) ? [] : null;
    case AST_NODE_TYPES.AssignmentPattern:
      return patternPath(pattern.left, target);
    case AST_NODE_TYPES.ObjectPattern:
      for (const property of pattern.properties) {
        if (property.type === AST_NODE_TYPES.RestElement) continue;
        const inner = patternPath(property.value, target);
        if (inner === null) continue;
        const key = staticName(property);
        return key === null ? null : [key, ...inner];
      }
      return null;
    case AST_NODE_TYPES.ArrayPattern:
      for (const [index, element] of pattern.elements.entries()) {
        if (!element || element.type === AST_NODE_TYPES.RestElement) continue;
        const inner = patternPath(element, target);
        if (inner !== null) return [index, ...inner];
      }
      return null;
    default:
      return null;
  }
}

function sameRange(a: TSESTree.Node, b: TSESTree.Node): boolean {
  return a.range[0] === b.range[0] && a.range[1] === b.range[1];
}
