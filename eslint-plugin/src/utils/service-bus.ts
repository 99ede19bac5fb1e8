import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { staticName } from "./static-name.js";

/**
 * `receiver.<method>(message)`: a settlement call by name (Service Bus's own method names). In typed mode a
 * receiver whose type is known and is not an `@azure/service-bus` receiver is not one.
 */
export function isSettlement(analysis: Analysis, node: TSESTree.Node, method: string): node is TSESTree.CallExpression {
  if (node.type !== AST_NODE_TYPES.CallExpression || node.callee.type !== AST_NODE_TYPES.MemberExpression) return false;
  if (staticName(node.callee) !== method) return false;
  return analysis.oracle?.is(node.callee.object, "serviceBusReceiver") !== false;
}
