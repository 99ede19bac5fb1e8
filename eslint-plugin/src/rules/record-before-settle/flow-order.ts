import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";

/**
 * Whether `later` can run after `earlier` on one path through the code, judged from the syntax: it starts after
 * `earlier` ends, the two are not in exclusive branches (`if`/`else`, `?:`, different `switch` cases), and no
 * `return`, `throw`, `break` or `continue` follows `earlier` in its own block before the paths meet.
 */
export function mayRunAfter(earlier: TSESTree.Node, later: TSESTree.Node): boolean {
  if (later.range[0] < earlier.range[1]) return false;
  const ancestors = new Set<TSESTree.Node>();
  for (let node: TSESTree.Node | undefined = earlier; node; node = node.parent) ancestors.add(node);
  let meet: TSESTree.Node | undefined = later;
  while (meet && !ancestors.has(meet)) meet = meet.parent;
  if (!meet) return false;
  if (exclusiveBranches(meet, earlier, later)) return false;
  for (let child: TSESTree.Node = earlier, parent = earlier.parent; parent && parent !== meet; child = parent, parent = parent.parent) {
    if (exitsAfter(parent, child)) return false;
  }
  return true;
}

function branchOf(meet: TSESTree.Node, node: TSESTree.Node): TSESTree.Node | undefined {
  let current: TSESTree.Node | undefined = node;
  while (current && current.parent !== meet) current = current.parent;
  return current;
}

function exclusiveBranches(meet: TSESTree.Node, a: TSESTree.Node, b: TSESTree.Node): boolean {
  const branchA = branchOf(meet, a);
  const branchB = branchOf(meet, b);
  switch (meet.type) {
    case AST_NODE_TYPES.IfStatement:
    case AST_NODE_TYPES.ConditionalExpression:
      return branchA !== meet.test && branchB !== meet.test && branchA !== branchB;
    case AST_NODE_TYPES.SwitchStatement:
      return branchA !== meet.discriminant && branchB !== meet.discriminant && branchA !== branchB;
    default:
      return false;
  }
}

/** A statement list in which `child` is followed by a statement that leaves it. */
function exitsAfter(parent: TSESTree.Node, child: TSESTree.Node): boolean {
  const statements =
    parent.type === AST_NODE_TYPES.BlockStatement || parent.type === AST_NODE_TYPES.Program
      ? parent.body
      : parent.type === AST_NODE_TYPES.SwitchCase
        ? parent.consequent
        : null;
  if (!statements) return false;
  const index = statements.indexOf(child as TSESTree.Statement);
  return statements.slice(index + 1).some(
    (statement) =>
      statement.type === AST_NODE_TYPES.ReturnStatement ||
      statement.type === AST_NODE_TYPES.ThrowStatement ||
      statement.type === AST_NODE_TYPES.BreakStatement ||
      statement.type === AST_NODE_TYPES.ContinueStatement,
  );
}
