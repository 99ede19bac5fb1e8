import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { calledFunction } from "./local-function.js";
import { walk, type FunctionNode } from "./walk.js";

/** A named test on a node; the name keys the per-function cache. */
export interface NodeTest {
  name: string;
  test(analysis: Analysis, node: TSESTree.Node): boolean;
}

/**
 * The first node under `root` (in source order) that passes `check` or calls a same-file function or method
 * whose body does, at any depth. Returns the node in `root` itself: the matching node, or the call that leads
 * to one. Callbacks written inline are part of `root`.
 */
export function firstReaching(analysis: Analysis, root: TSESTree.Node, check: NodeTest): TSESTree.Node | null {
  let found: TSESTree.Node | null = null;
  walk(analysis.sourceCode, root, (node) => {
    if (found) return false;
    if (check.test(analysis, node)) {
      found = node;
      return false;
    }
    if (node.type === AST_NODE_TYPES.CallExpression) {
      const fn = calledFunction(analysis, node.callee);
      if (fn && functionReaches(analysis, fn, check)) {
        found = node;
        return false;
      }
    }
    return undefined;
  });
  return found;
}

/** Every node under `root` that passes `check` or leads to one (see `firstReaching`), in source order. */
export function allReaching(analysis: Analysis, root: TSESTree.Node, check: NodeTest): TSESTree.Node[] {
  return analysis.memo(`all:${check.name}`, root, () => collectReaching(analysis, root, check), []);
}

function collectReaching(analysis: Analysis, root: TSESTree.Node, check: NodeTest): TSESTree.Node[] {
  const found: TSESTree.Node[] = [];
  walk(analysis.sourceCode, root, (node) => {
    if (check.test(analysis, node)) {
      found.push(node);
      return false;
    }
    if (node.type === AST_NODE_TYPES.CallExpression) {
      const fn = calledFunction(analysis, node.callee);
      if (fn && functionReaches(analysis, fn, check)) found.push(node);
    }
    return undefined;
  });
  return found;
}

function functionReaches(analysis: Analysis, fn: FunctionNode, check: NodeTest): boolean {
  return analysis.memo(`reach:${check.name}`, fn, () => firstReaching(analysis, fn.body, check) !== null, false);
}
