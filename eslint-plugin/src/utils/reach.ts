import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { fileIndex, within } from "./file-index.js";
import { calledFunction } from "./local-function.js";
import type { FunctionNode } from "./walk.js";

/** A test on a call or tagged template, with the names of the caches of its answers. */
export interface NodeTest {
  test(analysis: Analysis, node: TSESTree.Node): boolean;
  /** The memo tables of its answers per root and per function (named once, not per question). */
  allTable: string;
  reachTable: string;
}

/** A test with its memo tables' names derived from `name`. */
export function nodeTest(name: string, test: NodeTest["test"]): NodeTest {
  return { test, allTable: `all:${name}`, reachTable: `reach:${name}` };
}

/**
 * The first call under `root` (in source order) that passes `check` or calls a same-file function or method
 * whose body does, at any depth. Returns the node in `root` itself: the matching node, or the call that leads
 * to one. Callbacks written inline are part of `root`.
 */
export function firstReaching(analysis: Analysis, root: TSESTree.Node, check: NodeTest): TSESTree.Node | null {
  return reaching(analysis, root, check, true)[0] ?? null;
}

/** Every call under `root` that passes `check` or leads to one (see `firstReaching`), in source order. */
export function allReaching(analysis: Analysis, root: TSESTree.Node, check: NodeTest): TSESTree.Node[] {
  return analysis.memo(check.allTable, root, () => reaching(analysis, root, check, false), []);
}

/**
 * The candidates come from the file's index of calls (one walk per file), not from a walk of `root`; what lies
 * inside a match is not looked at (the match already answers for it), as a walk that stops there would not.
 */
function reaching(analysis: Analysis, root: TSESTree.Node, check: NodeTest, firstOnly: boolean): TSESTree.Node[] {
  const found: TSESTree.Node[] = [];
  let matchedUntil = -1;
  for (const node of within(fileIndex(analysis.sourceCode).calls, root)) {
    if (node.range[0] < matchedUntil) continue;
    if (check.test(analysis, node)) {
      found.push(node);
      matchedUntil = node.range[1];
    } else if (node.type === AST_NODE_TYPES.CallExpression) {
      const fn = calledFunction(analysis, node.callee);
      if (fn && functionReaches(analysis, fn, check)) found.push(node);
      else continue;
    } else {
      continue;
    }
    if (firstOnly) break;
  }
  return found;
}

function functionReaches(analysis: Analysis, fn: FunctionNode, check: NodeTest): boolean {
  return analysis.memo(check.reachTable, fn, () => firstReaching(analysis, fn.body, check) !== null, false);
}
