import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { isFunction } from "./walk.js";

/**
 * Whether `write` (an `options.idempotencyKey = key`, an `args.push({ idempotencyKey })`) may not have run when
 * `use` (the Stripe call, or its argument) runs: it sits, below their closest common ancestor, in a branch of an
 * `if`, `?:`, `&&`/`||`/`??`, `switch`, `catch`, a loop body, or a callback. Writes after the use never count: they
 * are reported as conditional too, so the caller's "key on some paths" verdict stays on the safe side only when the
 * key is set first on every path.
 */
export function isConditionalFor(write: TSESTree.Node, use: TSESTree.Node): boolean {
  if (write.range[0] > use.range[0]) return true;
  return conditionalAncestor(write, use) !== null;
}

/**
 * Writes that cover both branches of one `if`/`else` (`if (retry) o.idempotencyKey = a; else o.idempotencyKey = b`)
 * together run on every path: the ones among `writes` that are conditional only through such a pair.
 */
export function coveredByBothBranches(writes: readonly TSESTree.Node[], use: TSESTree.Node): Set<TSESTree.Node> {
  const covered = new Set<TSESTree.Node>();
  for (const write of writes) {
    const branch = conditionalAncestor(write, use);
    if (branch?.type !== AST_NODE_TYPES.IfStatement || !branch.alternate || write.range[0] > use.range[0]) continue;
    const inConsequent = (node: TSESTree.Node) => contains(branch.consequent, node);
    const inAlternate = (node: TSESTree.Node) => contains(branch.alternate!, node);
    if (writes.some(inConsequent) && writes.some(inAlternate)) covered.add(write);
  }
  return covered;
}

/** The outermost construct below the common ancestor of `write` and `use` that may skip `write`. */
function conditionalAncestor(write: TSESTree.Node, use: TSESTree.Node): TSESTree.Node | null {
  const useAncestors = new Set<TSESTree.Node>();
  for (let current: TSESTree.Node | undefined = use; current; current = current.parent) useAncestors.add(current);
  let found: TSESTree.Node | null = null;
  let child: TSESTree.Node = write;
  for (let current = write.parent; current && !useAncestors.has(current); child = current, current = current.parent) {
    if (skips(current, child)) found = current;
  }
  return found;
}

function skips(node: TSESTree.Node, child: TSESTree.Node): boolean {
  switch (node.type) {
    case AST_NODE_TYPES.IfStatement:
    case AST_NODE_TYPES.ConditionalExpression:
      return child !== node.test;
    case AST_NODE_TYPES.LogicalExpression:
      return child === node.right;
    case AST_NODE_TYPES.SwitchCase:
    case AST_NODE_TYPES.CatchClause:
    case AST_NODE_TYPES.WhileStatement:
    case AST_NODE_TYPES.ForStatement:
    case AST_NODE_TYPES.ForInStatement:
    case AST_NODE_TYPES.ForOfStatement:
      return child === ("body" in node ? node.body : null) || node.type === AST_NODE_TYPES.SwitchCase || node.type === AST_NODE_TYPES.CatchClause;
    default:
      return isFunction(node);
  }
}

function contains(outer: TSESTree.Node, inner: TSESTree.Node): boolean {
  return outer.range[0] <= inner.range[0] && inner.range[1] <= outer.range[1];
}
