import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { bindingOf } from "./binding.js";
import { calledFunction, enclosingClassBody, returnedExpressions } from "./local-function.js";
import { moduleOrigin } from "./module-origin.js";
import { staticName } from "./static-name.js";
import { annotatedTypeName } from "./type-annotation.js";
import { unwrap } from "./unwrap.js";
import { walk } from "./walk.js";

/** What a receiver of `.paymentIntents.create(...)` is: a Stripe client, provably something else, or unknown. */
export type ClientVerdict = "stripe" | "other" | "unknown";

/**
 * Follows a value to where it was made: `new Stripe(key)`, `Stripe(key)`, `require("stripe")(key)`, a variable,
 * a class field or constructor assignment (`this.stripe`), a same-file factory, or a declared type. In typed mode
 * the checker's answer settles what the syntax leaves unknown.
 */
export function stripeClientVerdict(analysis: Analysis, node: TSESTree.Node): ClientVerdict {
  const target = unwrap(node);
  return analysis.memo("stripe-client", target, () => {
    const verdict = syntacticVerdict(analysis, target);
    if (verdict !== "unknown" || !analysis.oracle) return verdict;
    const typed = analysis.oracle.is(target, "stripeClient");
    return typed === undefined ? "unknown" : typed ? "stripe" : "other";
  }, "unknown");
}

function syntacticVerdict(analysis: Analysis, node: TSESTree.Node): ClientVerdict {
  switch (node.type) {
    case AST_NODE_TYPES.NewExpression:
    case AST_NODE_TYPES.CallExpression: {
      if (isStripeConstructor(analysis, node.callee)) return "stripe";
      if (node.type === AST_NODE_TYPES.NewExpression) return "other";
      const factory = calledFunction(analysis.sourceCode, node.callee);
      if (!factory) return "unknown";
      const verdicts = returnedExpressions(analysis.sourceCode, factory).map((value) => stripeClientVerdict(analysis, value));
      return verdicts.includes("stripe") ? "stripe" : "unknown";
    }
    case AST_NODE_TYPES.Identifier:
      return identifierVerdict(analysis, node);
    case AST_NODE_TYPES.MemberExpression:
      return node.object.type === AST_NODE_TYPES.ThisExpression ? fieldVerdict(analysis, node) : "unknown";
    case AST_NODE_TYPES.ObjectExpression:
    case AST_NODE_TYPES.ArrayExpression:
    case AST_NODE_TYPES.Literal:
    case AST_NODE_TYPES.TemplateLiteral:
      return "other";
    default:
      return "unknown";
  }
}

function isStripeConstructor(analysis: Analysis, callee: TSESTree.Node): boolean {
  const origin = moduleOrigin(analysis.sourceCode, callee);
  return origin?.module === "stripe" && (origin.path.length === 0 || (origin.path.length === 1 && origin.path[0] === "Stripe"));
}

function identifierVerdict(analysis: Analysis, identifier: TSESTree.Identifier): ClientVerdict {
  const binding = bindingOf(analysis.sourceCode, identifier);
  if (!binding) return "unknown";
  const { definition } = binding;
  const declared = annotationVerdict(definition.name);
  if (declared !== "unknown") return declared;
  if (
    definition.type === "Variable" &&
    definition.node.type === AST_NODE_TYPES.VariableDeclarator &&
    definition.node.id.type === AST_NODE_TYPES.Identifier &&
    definition.node.init
  ) {
    return stripeClientVerdict(analysis, definition.node.init);
  }
  return "unknown";
}

/** `this.stripe`: the field's initialiser or declared type, or what the constructor assigns to it. */
function fieldVerdict(analysis: Analysis, member: TSESTree.MemberExpression): ClientVerdict {
  const name = staticName(member);
  const body = enclosingClassBody(member);
  if (name === null || !body) return "unknown";
  for (const element of body.body) {
    if (element.type === AST_NODE_TYPES.PropertyDefinition && !element.static && staticName(element) === name) {
      if (element.value) return stripeClientVerdict(analysis, element.value);
      const declared = annotationVerdict(element);
      if (declared !== "unknown") return declared;
    }
    if (element.type === AST_NODE_TYPES.MethodDefinition && element.kind === "constructor" && element.value.type === AST_NODE_TYPES.FunctionExpression) {
      const verdict = constructorVerdict(analysis, element.value, name);
      if (verdict !== "unknown") return verdict;
    }
  }
  return "unknown";
}

function constructorVerdict(analysis: Analysis, constructor: TSESTree.FunctionExpression, name: string): ClientVerdict {
  for (const parameter of constructor.params) {
    if (parameter.type === AST_NODE_TYPES.TSParameterProperty) {
      const inner = parameter.parameter.type === AST_NODE_TYPES.AssignmentPattern ? parameter.parameter.left : parameter.parameter;
      if (inner.type === AST_NODE_TYPES.Identifier && inner.name === name) return annotationVerdict(inner);
    }
  }
  let verdict: ClientVerdict = "unknown";
  walk(analysis.sourceCode, constructor.body, (node) => {
    if (
      verdict === "unknown" &&
      node.type === AST_NODE_TYPES.AssignmentExpression &&
      node.left.type === AST_NODE_TYPES.MemberExpression &&
      node.left.object.type === AST_NODE_TYPES.ThisExpression &&
      staticName(node.left) === name
    ) {
      verdict = stripeClientVerdict(analysis, node.right);
    }
  });
  return verdict;
}

function annotationVerdict(node: TSESTree.Node): ClientVerdict {
  const name = annotatedTypeName(node);
  if (name === null) return "unknown";
  return /stripe/i.test(name) ? "stripe" : "other";
}
