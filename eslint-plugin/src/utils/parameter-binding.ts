import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { FunctionNode } from "./walk.js";

/** A value a parameter holds during one analysed call: the argument expression and the caller's bindings. */
export interface BoundValue {
  value: TSESTree.Node;
  env: Env;
}

/** Parameter bindings of the calls being followed, keyed by the parameter node (identifier or pattern). */
export type Env = ReadonlyMap<TSESTree.Node, BoundValue>;

export const EMPTY_ENV: Env = new Map();

/** Binds a call's arguments to the called function's parameters (spread arguments end the binding). */
export function bindArguments(fn: FunctionNode, args: readonly TSESTree.Node[], env: Env): Env {
  const bound = new Map(env);
  for (const [index, parameter] of fn.params.entries()) {
    const argument = args[index];
    if (!argument || argument.type === AST_NODE_TYPES.SpreadElement) break;
    bound.set(parameterPattern(parameter), { value: argument, env });
  }
  return bound;
}

/** The parameter (as `bindArguments` keys it) that declares `identifier`, with its position. */
export function parameterOf(fn: FunctionNode, identifier: TSESTree.Identifier): { pattern: TSESTree.Node; index: number } | null {
  for (const [index, parameter] of fn.params.entries()) {
    const pattern = parameterPattern(parameter);
    if (pattern.range[0] <= identifier.range[0] && identifier.range[1] <= pattern.range[1]) return { pattern, index };
  }
  return null;
}

/** `private x: T` and `x = 1` declare the same binding as `x`: key them by the inner pattern. */
function parameterPattern(parameter: TSESTree.Parameter): TSESTree.Node {
  let pattern: TSESTree.Node = parameter;
  if (pattern.type === AST_NODE_TYPES.TSParameterProperty) pattern = pattern.parameter;
  if (pattern.type === AST_NODE_TYPES.AssignmentPattern) pattern = pattern.left;
  return pattern;
}
