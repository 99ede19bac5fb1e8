import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "../../utils/analysis.js";
import { bindingOf } from "../../utils/binding.js";
import { calledFunction, returnedExpressions } from "../../utils/local-function.js";
import { bindArguments, EMPTY_ENV, parameterOf, type Env } from "../../utils/parameter-binding.js";
import { patternPath } from "../../utils/pattern-path.js";
import { staticName } from "../../utils/static-name.js";
import { STABLE_MESSAGE_PARTS } from "./unstable-catalog.js";
import { unwrap } from "../../utils/unwrap.js";
import { isFunction } from "../../utils/walk.js";

/**
 * Whether a value is (part of) the message's business payload: `message.body`, `message.applicationProperties`,
 * something destructured or parsed from them (`JSON.parse(m.body)`, `schema.parse(m.body)`), or a same-file helper
 * that returns one. A `messageId` field of the body is the producer's data, not Service Bus metadata.
 */
export function isFromMessageBody(analysis: Analysis, node: TSESTree.Node, env: Env = EMPTY_ENV, depth = 0): boolean {
  const target = unwrap(node);
  if (depth > 16) return false;
  if (env.size === 0) return analysis.memo("message-body", target, () => compute(analysis, target, env, depth), false);
  return compute(analysis, target, env, depth);
}

function compute(analysis: Analysis, node: TSESTree.Node, env: Env, depth: number): boolean {
  switch (node.type) {
    case AST_NODE_TYPES.MemberExpression: {
      const name = staticName(node);
      if (name !== null && STABLE_MESSAGE_PARTS.has(name)) return true;
      return isFromMessageBody(analysis, node.object, env, depth + 1);
    }
    case AST_NODE_TYPES.Identifier:
      return identifierFromBody(analysis, node, env, depth);
    case AST_NODE_TYPES.CallExpression: {
      const fn = calledFunction(analysis, node.callee);
      if (fn) {
        const bound = bindArguments(fn, node.arguments, env);
        return returnedExpressions(analysis.sourceCode, fn).some((value) => isFromMessageBody(analysis, value, bound, depth + 1));
      }
      const callee = unwrap(node.callee);
      if (callee.type === AST_NODE_TYPES.MemberExpression && isFromMessageBody(analysis, callee.object, env, depth + 1)) return true;
      return node.arguments.some((argument) => isFromMessageBody(analysis, argument, env, depth + 1));
    }
    case AST_NODE_TYPES.LogicalExpression:
      return isFromMessageBody(analysis, node.left, env, depth + 1) || isFromMessageBody(analysis, node.right, env, depth + 1);
    default:
      return false;
  }
}

function identifierFromBody(analysis: Analysis, identifier: TSESTree.Identifier, env: Env, depth: number): boolean {
  const binding = bindingOf(analysis.sourceCode, identifier);
  if (!binding) return false;
  const { definition } = binding;
  const name = definition.name as TSESTree.Identifier;
  if (definition.type === "Variable" && definition.node.type === AST_NODE_TYPES.VariableDeclarator) {
    const declarator = definition.node;
    const path = patternPath(declarator.id, name);
    if (path?.some((step) => typeof step === "string" && STABLE_MESSAGE_PARTS.has(step))) return true;
    return declarator.init ? isFromMessageBody(analysis, declarator.init, env, depth + 1) : false;
  }
  if (definition.type === "Parameter" && isFunction(definition.node)) {
    const parameter = parameterOf(definition.node, name);
    if (!parameter) return false;
    const path = patternPath(parameter.pattern, name);
    if (path?.some((step) => typeof step === "string" && STABLE_MESSAGE_PARTS.has(step))) return true;
    const bound = env.get(parameter.pattern);
    if (bound) return isFromMessageBody(analysis, bound.value, bound.env, depth + 1);
    // A helper's own parameter named for the payload (`function keyFor(body: UsageEvent)`).
    return path?.length === 0 && /^(body|payload|event)$/i.test(name.name);
  }
  return false;
}
