import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { bindingOf } from "./binding.js";
import { staticName } from "./static-name.js";
import type { StripeCall } from "./stripe-call.js";
import { unwrap } from "./unwrap.js";

/**
 * The idempotency key a Stripe call sends: `found` with the key expressions, `missing` when every argument that
 * can carry request options is known and none sets a key, `unknown` when an argument comes from somewhere the
 * file does not show (a parameter, an import, a spread of either): then no rule may claim the key is absent.
 */
export type KeyLookup = { kind: "found"; keys: TSESTree.Node[] } | { kind: "missing" } | { kind: "unknown" };

/** Methods whose first argument is an object id (`confirm(id, params, options)`): it never holds options. */
const LEADING_ID = new Set(["confirm", "capture", "pay", "incrementAuthorization", "createReversal", "update", "cancel", "finalizeInvoice"]);

const IDEMPOTENCY_HEADER = /^idempotency-key$/i;

export function idempotencyKeyOf(analysis: Analysis, call: TSESTree.CallExpression, info: StripeCall): KeyLookup {
  const optionArguments = call.arguments.slice(LEADING_ID.has(info.method) ? 1 : 0);
  return combine(optionArguments.map((argument) => lookup(analysis, argument, 0)));
}

function lookup(analysis: Analysis, node: TSESTree.Node, depth: number): KeyLookup {
  if (depth > 8) return { kind: "unknown" };
  const target = unwrap(node);
  switch (target.type) {
    case AST_NODE_TYPES.ObjectExpression:
      return objectLookup(analysis, target, depth);
    case AST_NODE_TYPES.Identifier: {
      if (target.name === "undefined") return { kind: "missing" };
      const declarator = bindingOf(analysis.sourceCode, target)?.definition.node;
      if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) {
        return lookup(analysis, declarator.init, depth + 1);
      }
      return { kind: "unknown" };
    }
    case AST_NODE_TYPES.ConditionalExpression:
      return combine([lookup(analysis, target.consequent, depth + 1), lookup(analysis, target.alternate, depth + 1)]);
    case AST_NODE_TYPES.Literal:
    case AST_NODE_TYPES.TemplateLiteral:
    case AST_NODE_TYPES.ArrayExpression:
    case AST_NODE_TYPES.ArrowFunctionExpression:
    case AST_NODE_TYPES.FunctionExpression:
      return { kind: "missing" };
    default:
      return { kind: "unknown" };
  }
}

function objectLookup(analysis: Analysis, object: TSESTree.ObjectExpression, depth: number): KeyLookup {
  const parts: KeyLookup[] = [];
  for (const property of object.properties) {
    if (property.type === AST_NODE_TYPES.SpreadElement) {
      parts.push(lookup(analysis, property.argument, depth + 1));
      continue;
    }
    const name = staticName(property);
    if (name === null) {
      parts.push({ kind: "unknown" });
    } else if (name === "idempotencyKey") {
      parts.push({ kind: "found", keys: [property.value] });
    } else if (name === "headers") {
      parts.push(headerLookup(unwrap(property.value)));
    }
  }
  return combine(parts);
}

function headerLookup(headers: TSESTree.Node): KeyLookup {
  if (headers.type !== AST_NODE_TYPES.ObjectExpression) return { kind: "unknown" };
  for (const property of headers.properties) {
    if (property.type === AST_NODE_TYPES.SpreadElement) return { kind: "unknown" };
    const name = staticName(property);
    if (name !== null && IDEMPOTENCY_HEADER.test(name)) return { kind: "found", keys: [property.value] };
  }
  return { kind: "missing" };
}

/** Any key found wins; otherwise one unknown part makes the whole unknown. */
function combine(parts: KeyLookup[]): KeyLookup {
  const keys = parts.flatMap((part) => (part.kind === "found" ? part.keys : []));
  if (keys.length > 0) return { kind: "found", keys };
  return parts.some((part) => part.kind === "unknown") ? { kind: "unknown" } : { kind: "missing" };
}

export function isIdempotencyHeaderName(name: string): boolean {
  return IDEMPOTENCY_HEADER.test(name);
}
